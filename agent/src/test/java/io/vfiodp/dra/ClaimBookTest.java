package io.vfiodp.dra;

import static io.vfiodp.dra.ClaimScript.fetched;
import static io.vfiodp.dra.ClaimScript.fetchedSpecial;
import static io.vfiodp.dra.ClaimScript.known;
import static io.vfiodp.dra.ClaimScript.kubeletHas;
import static io.vfiodp.dra.ClaimScript.kubeletHasNone;
import static io.vfiodp.dra.ClaimScript.ref;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.ClaimSource;
import io.vfiodp.handover.HandoverClaims;
import io.vfiodp.policy.Health;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The claims' book from tables, for the kubelet's prepare and unprepare calls: what is decided (the
 * claim's check, a device held by another claim, a claim asked for again), the files and the
 * checkpoint in the order they are written, what a failure takes back, and the answer, which comes
 * only once the checkpoint holds the change. Every row starts from the t4-numa node offered.
 */
class ClaimBookTest {

    private static final String T4 = "pci-0000-1a-00-0";
    private static final String T4_AS_GPU = "[" + T4 + " gpu [/dev/vfio/vfio, /dev/vfio/24]]";
    private static final String OTHER_AS_GPU = "[pci-0000-1b-00-0 gpu [/dev/vfio/vfio, /dev/vfio/25]]";
    private static final String CHECKPOINT = ClaimScript.CHECKPOINT.toString();
    private static final String LOST = "DRA checkpoint " + CHECKPOINT + " is not JSON";
    private static final String ALREADY = "ResourceClaim vms/second: device " + T4 + " (0000:1a:00.0) is already prepared for claim vms/first (UID u-1)";

    /** Claim "first" (UID u-1) prepared on the T4 and recorded. */
    private static final Consumer<ClaimScript> FIRST_PREPARED = s -> s.prepare(fetched("first", "u-1", T4));
    private static final Consumer<ClaimScript> NOTHING = s -> { };

    private static Arguments row(String behaviour, Consumer<ClaimScript> given, Function<ClaimScript, List<String>> when, String... expected) {
        return Arguments.of(behaviour, given, when, List.of(expected));
    }

    static Stream<Arguments> calls() {
        return Stream.of(
                // Prepare
                row("a new claim's files are written with its devices' VFIO nodes, it is logged as prepared and recorded, then answered",
                        NOTHING, s -> s.prepare(fetched("first", "u-1", T4)),
                        "write files of u-1 " + T4_AS_GPU, "INFO prepared claim vms/first (UID u-1): " + T4 + " (0000:1a:00.0)", "record [u-1]",
                        "answer prepare: u-1 prepared " + T4_AS_GPU),
                row("a claim whose files cannot be written is undone and refused, and nothing is recorded",
                        s -> s.writeFails("u-1", "No space left on device"), s -> s.prepare(fetched("first", "u-1", T4)),
                        "write files of u-1 " + T4_AS_GPU, "remove files of vms/first (UID u-1)",
                        "answer prepare: u-1 failed: claim vms/first (UID u-1): writing its CDI spec and metadata files failed: No space left on device"),
                row("a checkpoint that cannot be written takes back every claim of the call", s -> s.saveFails("Read-only file system"),
                        s -> s.prepare(fetched("first", "u-1", T4), fetched("other", "u-3", "pci-0000-1b-00-0")),
                        "write files of u-1 " + T4_AS_GPU, "INFO prepared claim vms/first (UID u-1): " + T4 + " (0000:1a:00.0)",
                        "write files of u-3 " + OTHER_AS_GPU, "INFO prepared claim vms/other (UID u-3): pci-0000-1b-00-0 (0000:1b:00.0)",
                        "record [u-1, u-3]", "remove files of vms/first (UID u-1)", "remove files of vms/other (UID u-3)",
                        "answer prepare: u-1 failed: cannot record the prepared claim in " + CHECKPOINT + ": Read-only file system; "
                                + "u-3 failed: cannot record the prepared claim in " + CHECKPOINT + ": Read-only file system"),
                row("a prepared claim asked for again has its files written again, from the book, and is answered as before with nothing to record",
                        FIRST_PREPARED, s -> s.prepare(known("first", "u-1")), "write files of u-1 " + T4_AS_GPU,
                        "answer prepare: u-1 prepared " + T4_AS_GPU),
                row("a prepared claim whose files cannot be written again is refused but stays prepared",
                        FIRST_PREPARED.andThen(s -> s.writeFails("u-1", "No space left on device")), s -> s.prepare(known("first", "u-1")),
                        "write files of u-1 " + T4_AS_GPU,
                        "answer prepare: u-1 failed: claim vms/first (UID u-1) is prepared, but writing its files failed: No space left on device"),
                row("a device held by another prepared claim is refused", FIRST_PREPARED, s -> s.prepare(fetched("second", "u-2", T4)),
                        "answer prepare: u-2 failed: " + ALREADY),
                row("in one call, a claim finds the device of an earlier one held", NOTHING,
                        s -> s.prepare(fetched("first", "u-1", T4), fetched("second", "u-2", T4)),
                        "write files of u-1 " + T4_AS_GPU, "INFO prepared claim vms/first (UID u-1): " + T4 + " (0000:1a:00.0)", "record [u-1]",
                        "answer prepare: u-1 prepared " + T4_AS_GPU + "; u-2 failed: " + ALREADY),
                row("in one call, a claim gets the device of an earlier one whose files could not be written",
                        s -> s.writeFails("u-1", "No space left on device"), s -> s.prepare(fetched("first", "u-1", T4), fetched("second", "u-2", T4)),
                        "write files of u-1 " + T4_AS_GPU, "remove files of vms/first (UID u-1)", "write files of u-2 " + T4_AS_GPU,
                        "INFO prepared claim vms/second (UID u-2): " + T4 + " (0000:1a:00.0)", "record [u-2]",
                        "answer prepare: u-1 failed: claim vms/first (UID u-1): writing its CDI spec and metadata files failed: No space left on device;"
                                + " u-2 prepared " + T4_AS_GPU),
                row("the scheduler's claim of a pod's extended resources is written with what Allocate would give its request's container",
                        s -> s.writeFails("u-5", "stop here"), s -> s.prepare(fetchedSpecial("vm-extended-resources-x7k2p", "u-5", T4, "pci-0000-b1-00-0")),
                        "write files of u-5 [" + T4 + " container-0-request-0 [/dev/vfio/vfio, /dev/vfio/24], pci-0000-b1-00-0 container-0-request-0"
                                + " [/dev/vfio/vfio, /dev/vfio/64]] env [container-0-request-0 {PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4="
                                + "0000:1a:00.0,0000:b1:00.0} [/dev/vfio/vfio, /dev/vfio/24, /dev/vfio/64]]",
                        "remove files of vms/vm-extended-resources-x7k2p (UID u-5)",
                        "answer prepare: u-5 failed: claim vms/vm-extended-resources-x7k2p (UID u-5): writing its CDI spec and metadata files failed:"
                                + " stop here"),
                row("a claim the check refuses is answered without a file touched", NOTHING, s -> s.prepare(fetched("broken", "u-9", "pci-0000-b2-00-0")),
                        "answer prepare: u-9 failed: ResourceClaim vms/broken allocation result 0: device pci-0000-b2-00-0 (0000:b2:00.0) is unhealthy:"
                                + " IOMMU group 65: /dev/vfio/65 missing"),
                row("a claim is checked against the devices offered at that moment",
                        s -> s.offer(DraNodes.withHealth(ClaimScript.NODE, "0000:1a:00.0", Health.unhealthy("gone"))),
                        s -> s.prepare(fetched("first", "u-1", T4)),
                        "answer prepare: u-1 failed: ResourceClaim vms/first allocation result 0: device " + T4 + " (0000:1a:00.0) is unhealthy: gone"),
                row("a claim the API could not give is refused with the API's reason", NOTHING,
                        s -> s.prepare(new ClaimRequest("vms", "u-8", "missing", Optional.of(new ClaimSource.Failed("ResourceClaim vms/missing does not exist")))),
                        "answer prepare: u-8 failed: ResourceClaim vms/missing does not exist"),
                row("a claim unprepared while the API was asked about it is refused", NOTHING, s -> s.prepare(known("first", "u-1")),
                        "answer prepare: u-1 failed: claim vms/first (UID u-1) was unprepared while being prepared; ask again"),

                // Unprepare
                row("unpreparing a prepared claim removes its files under the book's names, and it leaves the book and the checkpoint before the answer",
                        FIRST_PREPARED, s -> s.unprepare(ref("renamed", "u-1")), "remove files of vms/first (UID u-1)",
                        "INFO unprepared claim vms/first (UID u-1)", "record []", "answer unprepare: u-1 done"),
                row("unpreparing a claim never prepared removes whatever files it might have, and succeeds with nothing to record", NOTHING,
                        s -> s.unprepare(ref("never", "u-0")), "remove files of vms/never (UID u-0)", "answer unprepare: u-0 done"),
                row("files that cannot be removed keep the claim prepared and say why",
                        FIRST_PREPARED.andThen(s -> s.removeFails("u-1", "Device or resource busy")), s -> s.unprepare(ref("first", "u-1")),
                        "remove files of vms/first (UID u-1)",
                        "answer unprepare: u-1 failed: claim vms/first (UID u-1): removing its files failed: Device or resource busy"),
                row("a checkpoint that cannot record the unprepare gives the claim back to the book",
                        FIRST_PREPARED.andThen(s -> s.saveFails("Read-only file system")), s -> s.unprepare(ref("first", "u-1")),
                        "remove files of vms/first (UID u-1)", "INFO unprepared claim vms/first (UID u-1)", "record []",
                        "answer unprepare: u-1 failed: cannot record the unprepared claim in " + CHECKPOINT + ": Read-only file system"),
                row("undoing a prepare that cannot remove the files says so",
                        s -> s.writeFails("u-1", "No space left on device").removeFails("u-1", "Device or resource busy"),
                        s -> s.prepare(fetched("first", "u-1", T4)), "write files of u-1 " + T4_AS_GPU, "remove files of vms/first (UID u-1)",
                        "WARN claim vms/first (UID u-1): removing its files failed: Device or resource busy",
                        "answer prepare: u-1 failed: claim vms/first (UID u-1): writing its CDI spec and metadata files failed: No space left on device"),

                // Close
                row("once closed, a call is answered without a file touched", s -> s.book.close(), s -> s.prepare(fetched("first", "u-1", T4)),
                        "answer prepare: u-1 failed: the DRA driver is shutting down; ask again"),
                row("once closed, an unprepare is answered without a file touched", FIRST_PREPARED.andThen(s -> s.book.close()),
                        s -> s.unprepare(ref("first", "u-1")), "answer unprepare: u-1 failed: the DRA driver is shutting down; ask again"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("calls")
    void call(String behaviour, Consumer<ClaimScript> given, Function<ClaimScript, List<String>> when, List<String> expected) {
        ClaimScript script = new ClaimScript();
        given.accept(script);

        assertThat(when.apply(script)).containsExactlyElementsOf(expected);
    }

    @Test
    void aPrepareThatCannotBeRecordedLeavesNoClaimBehind() {
        ClaimScript script = new ClaimScript().saveFails("Read-only file system");
        script.prepare(fetched("first", "u-1", T4), fetched("other", "u-3", "pci-0000-1b-00-0"));

        assertThat(script.prepared()).isEmpty();
        assertThat(script.book.held()).isEqualTo(new HandoverClaims.Known(Set.of()));
    }

    @Test
    void anUnprepareThatCannotBeRecordedKeepsTheDeviceHeld() {
        ClaimScript script = new ClaimScript();
        FIRST_PREPARED.accept(script);
        script.saveFails("Read-only file system").unprepare(ref("first", "u-1"));

        assertThat(script.prepared()).isEqualTo(Map.of("u-1", List.of(T4)));
        assertThat(script.book.held()).isEqualTo(new HandoverClaims.Known(Set.of("0000:1a:00.0")));
        assertThat(script.healed().prepare(fetched("second", "u-2", T4))).containsExactly("answer prepare: u-2 failed: " + ALREADY);
    }

    @Test
    void theCheckpointsClaimsAreHeldFromTheStart() {
        ClaimScript first = new ClaimScript();
        FIRST_PREPARED.accept(first);
        ClaimScript restarted = new ClaimScript(first.book.claims(), Optional.empty());

        assertThat(restarted.prepare(fetched("second", "u-2", T4))).containsExactly("answer prepare: u-2 failed: " + ALREADY);
        assertThat(restarted.book.size()).isEqualTo(1);
        assertThat(restarted.book.held()).isEqualTo(new HandoverClaims.Known(Set.of("0000:1a:00.0")));
    }

    @Test
    void whileTheCheckpointIsLostAnyDeviceMayBeHeld() {
        ClaimScript script = ClaimScript.lost(LOST, new TreeMap<>());

        assertThat(script.book.held()).isEqualTo(new HandoverClaims.Unknown(Set.of(), LOST));
        assertThat(script.read(kubeletHasNone())).containsExactly("record []", "INFO DRA: every claim the kubelet still has prepared is in "
                + CHECKPOINT + " again (0 claim(s)); claims are prepared as before");
        assertThat(script.book.held()).isEqualTo(new HandoverClaims.Known(Set.of()));
    }

    @Test
    void aClaimTheKubeletStillHasIsRebuiltAndRecordedOnceTheBookIsWhole() {
        ClaimScript script = ClaimScript.lost(LOST, new TreeMap<>());

        assertThat(script.read(kubeletHas("first", "u-1", T4))).containsExactly("INFO DRA: rebuilt claim vms/first (UID u-1) from the kubelet's"
                + " PodResources and the API: " + T4 + " (0000:1a:00.0)", "record [u-1]", "INFO DRA: every claim the kubelet still has prepared is in "
                + CHECKPOINT + " again (1 claim(s)); claims are prepared as before");
        assertThat(script.prepare(fetched("second", "u-2", T4))).containsExactly("answer prepare: u-2 failed: " + ALREADY);
    }

    // A lost checkpoint, and a PodResources reading taken before the kubelet had an unprepare's
    // answer (a handler's or a pass's reading races the call): it still lists the claim, which the
    // kubelet is dropping. Rebuilt from it, the claim would stay in the book, its device held for
    // a claim the kubelet no longer has, and a prepare again answered from the book unrecorded.

    @Test
    void aClaimUnpreparedBeforeTheReadingArrivedIsNotRebuiltAndCanBePreparedAgain() {
        ClaimScript script = ClaimScript.lost(LOST, new TreeMap<>());
        assertThat(script.unprepare(ref("first", "u-1"))).containsExactly("remove files of vms/first (UID u-1)", "answer unprepare: u-1 done");
        assertThat(script.read(kubeletHas("first", "u-1", T4))).isEmpty();

        assertThat(script.prepared()).isEmpty();
        assertThat(script.prepare(fetched("first", "u-1", T4))).containsExactly("write files of u-1 " + T4_AS_GPU,
                "INFO prepared claim vms/first (UID u-1): " + T4 + " (0000:1a:00.0)", "record [u-1]", "answer prepare: u-1 prepared " + T4_AS_GPU);
    }

    @Test
    void aRecordedClaimUnpreparedBeforeTheReadingArrivedIsNotRebuilt() {
        ClaimScript first = new ClaimScript();
        FIRST_PREPARED.accept(first);
        ClaimScript script = ClaimScript.lost(LOST, first.book.claims());
        assertThat(script.unprepare(ref("first", "u-1"))).containsExactly("remove files of vms/first (UID u-1)",
                "INFO unprepared claim vms/first (UID u-1)", "record []", "answer unprepare: u-1 done");
        assertThat(script.read(kubeletHas("first", "u-1", T4))).isEmpty();

        assertThat(script.prepared()).isEmpty();
    }

    @Test
    void aClaimUnpreparedBeforeTheReadingArrivedIsNotRebuiltAndItsDeviceIsHeldUntilTheKubeletNoLongerListsIt() {
        ClaimScript script = ClaimScript.lost(LOST, new TreeMap<>());
        script.unprepare(ref("first", "u-1"));
        assertThat(script.read(kubeletHas("first", "u-1", T4))).isEmpty();

        assertThat(script.prepared()).isEmpty();
        assertThat(script.prepare(fetched("second", "u-2", T4))).containsExactly("answer prepare: u-2 failed: claim vms/second"
                + " (UID u-2): device " + T4 + " may be held by claim vms/first, which the kubelet still has prepared (PodResources) and whose"
                + " record was lost: " + LOST);
        assertThat(script.read(kubeletHasNone())).containsExactly("record []", "INFO DRA: every claim the kubelet still has prepared is in "
                + CHECKPOINT + " again (0 claim(s)); claims are prepared as before");
    }
}
