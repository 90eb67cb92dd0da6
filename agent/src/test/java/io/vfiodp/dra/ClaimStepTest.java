package io.vfiodp.dra;

import static io.vfiodp.dra.DriverScript.at;
import static io.vfiodp.dra.DriverScript.close;
import static io.vfiodp.dra.DriverScript.fetched;
import static io.vfiodp.dra.DriverScript.fetchedSpecial;
import static io.vfiodp.dra.DriverScript.filesNotRemoved;
import static io.vfiodp.dra.DriverScript.filesNotWritten;
import static io.vfiodp.dra.DriverScript.filesRemoved;
import static io.vfiodp.dra.DriverScript.filesWritten;
import static io.vfiodp.dra.DriverScript.known;
import static io.vfiodp.dra.DriverScript.kubeletHas;
import static io.vfiodp.dra.DriverScript.kubeletHasNone;
import static io.vfiodp.dra.DriverScript.notRecorded;
import static io.vfiodp.dra.DriverScript.prepare;
import static io.vfiodp.dra.DriverScript.recorded;
import static io.vfiodp.dra.DriverScript.ref;
import static io.vfiodp.dra.DriverScript.target;
import static io.vfiodp.dra.DriverScript.unprepare;
import static io.vfiodp.dra.DriverStepTest.PUBLISHED;
import static io.vfiodp.dra.DriverStepTest.plus;
import static io.vfiodp.dra.DriverStepTest.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.dra.DriverScript.At;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.ClaimSource;
import io.vfiodp.policy.Health;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The driver's step from tables, for the kubelet's prepare and unprepare calls: what is decided
 * (the claim's check, a device held by another claim, a claim asked for again), the files and the
 * checkpoint as actions whose outcomes come back, and the answer that waits for the checkpoint.
 * Every row starts from a driver serving the t4-numa node with its slices published.
 */
class ClaimStepTest {

    private static final String T4 = "pci-0000-1a-00-0";
    private static final String T4_AS_GPU = "[" + T4 + " gpu [/dev/vfio/vfio, /dev/vfio/24]]";
    private static final String CHECKPOINT = "/plugins/vfio-device-plugin.io/checkpoint.json";
    private static final String LOST = "DRA checkpoint " + CHECKPOINT + " is not JSON";

    /** Claim "first" (UID u-1) prepared by call 1 on the T4 and recorded. */
    private static final List<At> FIRST_PREPARED = plus(PUBLISHED, at(10, prepare(1, fetched("first", "u-1", T4))),
            at(10, filesWritten(1, "u-1")), at(10, recorded(1)));
    /** Call 1 prepares "first" (u-1), then "second" (u-2), both on the T4; the first's files are being written. */
    private static final List<At> RIVALS_WRITING = plus(PUBLISHED, at(10, prepare(1, fetched("first", "u-1", T4), fetched("second", "u-2", T4))));
    /** Call 1 prepares "first" on the T4 and "other" (u-3) on another GPU; both are written, the checkpoint is being saved. */
    private static final List<At> TWO_RECORDING = plus(PUBLISHED, at(10, prepare(1, fetched("first", "u-1", T4), fetched("other", "u-3",
            "pci-0000-1b-00-0"))), at(10, filesWritten(1, "u-1")), at(10, filesWritten(1, "u-3")));

    static Stream<Arguments> transitions() {
        return Stream.of(
                // Prepare
                row("a new claim's files are written with its devices' VFIO nodes", PUBLISHED, at(10, prepare(1, fetched("first", "u-1", T4))),
                        "write files of u-1 " + T4_AS_GPU + " for call 1"),
                row("its files written, the claim is logged as prepared and recorded before any answer",
                        plus(PUBLISHED, at(10, prepare(1, fetched("first", "u-1", T4)))), at(10, filesWritten(1, "u-1")),
                        "INFO prepared claim vms/first (UID u-1): " + T4 + " (0000:1a:00.0)", "record [u-1] for call 1"),
                row("the kubelet is answered once the checkpoint holds the claim",
                        plus(PUBLISHED, at(10, prepare(1, fetched("first", "u-1", T4))), at(10, filesWritten(1, "u-1"))), at(10, recorded(1)),
                        "answer prepare 1: u-1 prepared " + T4_AS_GPU),
                row("a claim whose files cannot be written is undone and refused, and nothing is recorded",
                        plus(PUBLISHED, at(10, prepare(1, fetched("first", "u-1", T4)))), at(10, filesNotWritten(1, "u-1", "No space left on device")),
                        "remove files of vms/first (UID u-1) for call 1, undoing",
                        "answer prepare 1: u-1 failed: claim vms/first (UID u-1): writing its CDI spec and metadata files failed: No space left on device"),
                row("a checkpoint that cannot be written takes back every claim of the call", TWO_RECORDING,
                        at(10, notRecorded(1, "Read-only file system")), "remove files of vms/first (UID u-1) for call 1, undoing",
                        "remove files of vms/other (UID u-3) for call 1, undoing",
                        "answer prepare 1: u-1 failed: cannot record the prepared claim in " + CHECKPOINT + ": Read-only file system; "
                                + "u-3 failed: cannot record the prepared claim in " + CHECKPOINT + ": Read-only file system"),
                row("a prepared claim asked for again has its files written again, from the book", FIRST_PREPARED,
                        at(20, prepare(2, known("first", "u-1"))), "write files of u-1 " + T4_AS_GPU + " for call 2"),
                row("and is answered as before, with nothing to record", plus(FIRST_PREPARED, at(20, prepare(2, known("first", "u-1")))),
                        at(20, filesWritten(2, "u-1")), "answer prepare 2: u-1 prepared " + T4_AS_GPU),
                row("a prepared claim whose files cannot be written again is refused but stays prepared",
                        plus(FIRST_PREPARED, at(20, prepare(2, known("first", "u-1")))), at(20, filesNotWritten(2, "u-1", "No space left on device")),
                        "answer prepare 2: u-1 failed: claim vms/first (UID u-1) is prepared, but writing its files failed: No space left on device"),
                row("a device held by another prepared claim is refused", FIRST_PREPARED, at(20, prepare(2, fetched("second", "u-2", T4))),
                        "answer prepare 2: u-2 failed: ResourceClaim vms/second: device " + T4
                                + " (0000:1a:00.0) is already prepared for claim vms/first (UID u-1)"),
                row("in one call, a claim finds the device of an earlier one held", RIVALS_WRITING, at(10, filesWritten(1, "u-1")),
                        "INFO prepared claim vms/first (UID u-1): " + T4 + " (0000:1a:00.0)", "record [u-1] for call 1"),
                row("in one call, a claim gets the device of an earlier one whose files could not be written", RIVALS_WRITING,
                        at(10, filesNotWritten(1, "u-1", "No space left on device")), "remove files of vms/first (UID u-1) for call 1, undoing",
                        "write files of u-2 " + T4_AS_GPU + " for call 1"),
                row("the scheduler's claim of a pod's extended resources is written with what Allocate would give its request's container",
                        PUBLISHED, at(10, prepare(1, fetchedSpecial("vm-extended-resources-x7k2p", "u-5", T4, "pci-0000-b1-00-0"))),
                        "write files of u-5 [" + T4 + " container-0-request-0 [/dev/vfio/vfio, /dev/vfio/24], pci-0000-b1-00-0 container-0-request-0"
                                + " [/dev/vfio/vfio, /dev/vfio/64]] env [container-0-request-0 {PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4="
                                + "0000:1a:00.0,0000:b1:00.0} [/dev/vfio/vfio, /dev/vfio/24, /dev/vfio/64]] for call 1"),
                row("a claim the check refuses is answered without a file touched", PUBLISHED,
                        at(10, prepare(1, fetched("broken", "u-9", "pci-0000-b2-00-0"))), "answer prepare 1: u-9 failed: ResourceClaim vms/broken"
                                + " allocation result 0: device pci-0000-b2-00-0 (0000:b2:00.0) is unhealthy: IOMMU group 65: /dev/vfio/65 missing"),
                row("a claim is checked against the devices offered at that moment",
                        plus(PUBLISHED, at(10, target(DraNodes.withHealth(DriverStepTest.NODE, "0000:1a:00.0", Health.unhealthy("gone"))))),
                        at(20, prepare(1, fetched("first", "u-1", T4))),
                        "answer prepare 1: u-1 failed: ResourceClaim vms/first allocation result 0: device " + T4 + " (0000:1a:00.0) is unhealthy: gone"),
                row("a claim the API could not give is refused with the API's reason", PUBLISHED,
                        at(10, prepare(1, new ClaimRequest("vms", "u-8", "missing", Optional.of(new ClaimSource.Failed(
                                "ResourceClaim vms/missing does not exist"))))), "answer prepare 1: u-8 failed: ResourceClaim vms/missing does not exist"),
                row("a claim unprepared while the API was asked about it is refused", PUBLISHED, at(10, prepare(1, known("first", "u-1"))),
                        "answer prepare 1: u-1 failed: claim vms/first (UID u-1) was unprepared while being prepared; ask again"),
                row("a second call waits for the first to be answered", plus(PUBLISHED, at(10, prepare(1, fetched("first", "u-1", T4)))),
                        at(10, prepare(2, fetched("other", "u-3", "pci-0000-1b-00-0")))),
                row("and is worked on once it is", plus(PUBLISHED, at(10, prepare(1, fetched("first", "u-1", T4))),
                                at(10, prepare(2, fetched("other", "u-3", "pci-0000-1b-00-0"))), at(10, filesWritten(1, "u-1"))), at(10, recorded(1)),
                        "answer prepare 1: u-1 prepared " + T4_AS_GPU, "write files of u-3 [pci-0000-1b-00-0 gpu [/dev/vfio/vfio, /dev/vfio/25]] for call 2"),
                row("an outcome for another call changes nothing", plus(PUBLISHED, at(10, prepare(1, fetched("first", "u-1", T4)))),
                        at(10, filesWritten(7, "u-1"))),

                // Unprepare
                row("unpreparing a prepared claim removes its files under the book's names", FIRST_PREPARED,
                        at(20, unprepare(2, ref("renamed", "u-1"))), "remove files of vms/first (UID u-1) for call 2"),
                row("its files removed, the claim leaves the book and the checkpoint before the answer",
                        plus(FIRST_PREPARED, at(20, unprepare(2, ref("first", "u-1")))), at(20, filesRemoved(2, ref("first", "u-1"))),
                        "INFO unprepared claim vms/first (UID u-1)", "record [] for call 2"),
                row("the kubelet is told once the checkpoint no longer holds it", plus(FIRST_PREPARED, at(20, unprepare(2, ref("first", "u-1"))),
                        at(20, filesRemoved(2, ref("first", "u-1")))), at(20, recorded(2)), "answer unprepare 2: u-1 done"),
                row("unpreparing a claim never prepared removes whatever files it might have", PUBLISHED, at(10, unprepare(1, ref("never", "u-0"))),
                        "remove files of vms/never (UID u-0) for call 1"),
                row("and succeeds with nothing to record", plus(PUBLISHED, at(10, unprepare(1, ref("never", "u-0")))),
                        at(10, filesRemoved(1, ref("never", "u-0"))), "answer unprepare 1: u-0 done"),
                row("files that cannot be removed keep the claim prepared and say why", plus(FIRST_PREPARED, at(20, unprepare(2, ref("first", "u-1")))),
                        at(20, filesNotRemoved(2, ref("first", "u-1"), false, "Device or resource busy")),
                        "answer unprepare 2: u-1 failed: claim vms/first (UID u-1): removing its files failed: Device or resource busy"),
                row("a checkpoint that cannot record the unprepare gives the claim back to the book",
                        plus(FIRST_PREPARED, at(20, unprepare(2, ref("first", "u-1"))), at(20, filesRemoved(2, ref("first", "u-1")))),
                        at(20, notRecorded(2, "Read-only file system")),
                        "answer unprepare 2: u-1 failed: cannot record the unprepared claim in " + CHECKPOINT + ": Read-only file system"),
                row("undoing a prepare that cannot remove the files says so", PUBLISHED,
                        at(10, filesNotRemoved(1, ref("first", "u-1"), true, "Device or resource busy")),
                        "WARN claim vms/first (UID u-1): removing its files failed: Device or resource busy"),

                // Close
                row("closing answers a call still open, claims not recorded yet included",
                        plus(PUBLISHED, at(10, prepare(1, fetched("first", "u-1", T4), fetched("broken", "u-9", "pci-0000-b2-00-0"),
                                fetched("other", "u-3", "pci-0000-1b-00-0"))), at(10, filesWritten(1, "u-1"))), at(10, close()),
                        "stop registration gen 2", "stop service gen 1",
                        "answer prepare 1: u-1 failed: the DRA driver is shutting down; ask again; u-9 failed: ResourceClaim vms/broken allocation"
                                + " result 0: device pci-0000-b2-00-0 (0000:b2:00.0) is unhealthy: IOMMU group 65: /dev/vfio/65 missing; "
                                + "u-3 failed: the DRA driver is shutting down; ask again"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transitions")
    void transition(String behaviour, List<At> given, At when, List<String> expected) {
        DriverScript script = new DriverScript();
        script.feedAll(given);

        assertThat(script.feed(when)).containsExactlyElementsOf(expected);
    }

    @Test
    void aPrepareThatCannotBeRecordedLeavesNoClaimBehind() {
        DriverScript script = new DriverScript();
        script.feedAll(plus(TWO_RECORDING, at(10, notRecorded(1, "Read-only file system"))));

        assertThat(DriverScript.prepared(script.state())).isEmpty();
    }

    @Test
    void anUnprepareThatCannotBeRecordedKeepsTheDeviceHeld() {
        DriverScript script = new DriverScript();
        script.feedAll(plus(FIRST_PREPARED, at(20, unprepare(2, ref("first", "u-1"))), at(20, filesRemoved(2, ref("first", "u-1"))),
                at(20, notRecorded(2, "Read-only file system"))));

        assertThat(DriverScript.prepared(script.state())).isEqualTo(Map.of("u-1", List.of(T4)));
        assertThat(script.feed(at(30, prepare(3, fetched("second", "u-2", T4))))).containsExactly("answer prepare 3: u-2 failed: ResourceClaim"
                + " vms/second: device " + T4 + " (0000:1a:00.0) is already prepared for claim vms/first (UID u-1)");
    }

    @Test
    void theCheckpointsClaimsAreHeldFromTheStart() {
        DriverScript first = new DriverScript();
        first.feedAll(FIRST_PREPARED);
        DriverScript restarted = new DriverScript(first.state().claims());
        restarted.feedAll(PUBLISHED);

        assertThat(restarted.feed(at(10, prepare(1, fetched("second", "u-2", T4))))).containsExactly("answer prepare 1: u-2 failed: ResourceClaim"
                + " vms/second: device " + T4 + " (0000:1a:00.0) is already prepared for claim vms/first (UID u-1)");
        assertThat(restarted.state().status(DraNodes.DRIVER).preparedClaims()).isEqualTo(1);
    }

    // A lost checkpoint, and a PodResources reading taken before the kubelet had an unprepare's
    // answer (a handler's or a pass's reading races the call): it still lists the claim, which the
    // kubelet is dropping. Rebuilt from it, the claim would stay in the book, its device held for
    // a claim the kubelet no longer has, and a prepare again answered from the book unrecorded.

    @Test
    void aClaimWhoseFilesAreBeingRemovedIsNotRebuilt() {
        DriverScript script = DriverScript.lost(LOST, new TreeMap<>());
        script.feedAll(PUBLISHED);
        assertThat(script.feed(at(10, unprepare(1, ref("first", "u-1"))))).containsExactly("remove files of vms/first (UID u-1) for call 1");
        assertThat(script.feed(at(10, kubeletHas("first", "u-1", T4)))).isEmpty();
        assertThat(script.feed(at(10, filesRemoved(1, ref("first", "u-1"))))).containsExactly("answer unprepare 1: u-1 done");

        assertThat(DriverScript.prepared(script.state())).isEmpty();
        assertThat(script.feed(at(20, prepare(2, fetched("first", "u-1", T4))))).containsExactly("write files of u-1 " + T4_AS_GPU + " for call 2");
        assertThat(script.feed(at(20, filesWritten(2, "u-1")))).containsExactly("INFO prepared claim vms/first (UID u-1): " + T4 + " (0000:1a:00.0)",
                "record [u-1] for call 2");
    }

    @Test
    void aClaimWhoseUnprepareIsBeingRecordedIsNotRebuilt() {
        DriverScript first = new DriverScript();
        first.feedAll(FIRST_PREPARED);
        DriverScript script = DriverScript.lost(LOST, first.state().claims());
        script.feedAll(PUBLISHED);
        script.feedAll(List.of(at(10, unprepare(1, ref("first", "u-1"))), at(10, filesRemoved(1, ref("first", "u-1")))));
        assertThat(script.feed(at(10, kubeletHas("first", "u-1", T4)))).isEmpty();
        assertThat(script.feed(at(10, recorded(1)))).containsExactly("answer unprepare 1: u-1 done");

        assertThat(DriverScript.prepared(script.state())).isEmpty();
    }

    @Test
    void aClaimUnpreparedBeforeTheReadingArrivedIsNotRebuiltAndItsDeviceIsHeldUntilTheKubeletNoLongerListsIt() {
        DriverScript script = DriverScript.lost(LOST, new TreeMap<>());
        script.feedAll(PUBLISHED);
        script.feedAll(List.of(at(10, unprepare(1, ref("first", "u-1"))), at(10, filesRemoved(1, ref("first", "u-1")))));
        assertThat(script.feed(at(10, kubeletHas("first", "u-1", T4)))).isEmpty();

        assertThat(DriverScript.prepared(script.state())).isEmpty();
        assertThat(script.feed(at(20, prepare(2, fetched("second", "u-2", T4))))).containsExactly("answer prepare 2: u-2 failed: claim vms/second"
                + " (UID u-2): device " + T4 + " may be held by claim vms/first, which the kubelet still has prepared (PodResources) and whose"
                + " record was lost: " + LOST);
        assertThat(script.feed(at(30, kubeletHasNone()))).containsExactly("record [] for call 0");
    }
}
