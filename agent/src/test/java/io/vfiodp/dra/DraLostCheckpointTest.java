package io.vfiodp.dra;

import static io.vfiodp.testkit.dra.DraKubeletSimulator.claim;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.handover.HandoverClaims;
import io.vfiodp.node.TargetState;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint that is lost (unreadable, empty, of the wrong shape, or missing while claims' files
 * are on the host) is never read as "no claim": the claims the kubelet still has prepared are
 * rebuilt from its PodResources and the API, no other claim gets a device they hold, and while
 * PodResources cannot be read, no claim is prepared at all.
 */
class DraLostCheckpointTest {

    private static final String A = "pci-0000-1a-00-0";
    private static final String B = "pci-0000-1b-00-0";
    private static final TargetState NODE = DraNodes.allDra("t4-numa");

    @TempDir Path root;

    private static NodePrepareResourceResponse prepare(DraHarness h, ResourceClaim c) {
        return h.kubelet.prepare(claim(c.getMetadata().getNamespace(), c.getMetadata().getName(), c.getMetadata().getUid()))
                .getClaimsOrThrow(c.getMetadata().getUid());
    }

    /** The kubelet's PodResources: pod vms/vm1 runs with claim {@code claim} on {@code device}. */
    private static PodResourcesReading podWithClaim(String claim, String device) {
        return new PodResourcesReading.Listed(List.of(new HeldDevice.ByClaim("vms/vm1", "compute", "vms/" + claim, DraNodes.DRIVER,
                DraNodes.NODE, device)));
    }

    private Checkpoint.Reading checkpoint(DraHarness h) {
        return new Checkpoint(h.settings.pluginDir(), DraNodes.DRIVER).load(new ClaimFiles(DraNodes.DRIVER, h.settings.pluginDir(),
                h.settings.cdiDir()));
    }

    @Test
    void aCheckpointOfTheWrongShapeIsLostAndTheHeldDeviceGoesToNoSecondClaim() throws IOException {
        try (DraHarness h = new DraHarness(root).start(NODE)) {
            ResourceClaim first = Claims.create(h.api.client(), Claims.allocated("first", "u", Claims.ours(A)));
            assertThat(prepare(h, first).getError()).isEmpty();
            h.driver.close();
            Files.writeString(h.settings.pluginDir().resolve(Checkpoint.FILE), "{\"version\": 1, \"driver\": \"vfio-device-plugin.io\", \"claims\": {}}");
            h.pods = () -> podWithClaim("first", A);

            h.restartDriver(NODE);

            ResourceClaim second = Claims.create(h.api.client(), Claims.allocated("second", "u", Claims.ours(A)));
            assertThat(prepare(h, second).getError()).contains("device " + A, "vms/first");
            // rebuilt from PodResources and the API, and recorded again
            await().atMost(Duration.ofSeconds(30)).until(() -> checkpoint(h) instanceof Checkpoint.Loaded l
                    && l.claims().containsKey(first.getMetadata().getUid()));
            assertThat(h.driver.heldDevices()).isEqualTo(new HandoverClaims.Known(Set.of("0000:1a:00.0")));
            assertThat(prepare(h, first).getError()).isEmpty();
        }
    }

    @Test
    void whilePodResourcesCannotBeReadNoClaimIsPreparedAndTheMessageSaysWhatIsSafe() throws IOException {
        try (DraHarness h = new DraHarness(root)) {
            Files.createDirectories(h.settings.pluginDir());
            Files.writeString(h.settings.pluginDir().resolve(Checkpoint.FILE), "");
            h.start(NODE);

            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu", "u", Claims.ours(B)));
            String error = prepare(h, c).getError();
            assertThat(error).contains("DRA checkpoint " + h.settings.pluginDir().resolve(Checkpoint.FILE) + " is empty",
                    "PodResources API cannot tell", "no claim is prepared until it answers", "mount /var/lib/kubelet/pod-resources");
            assertThat(h.driver.heldDevices()).isInstanceOf(HandoverClaims.Unknown.class);

            h.pods = () -> new PodResourcesReading.Listed(List.of());
            assertThat(prepare(h, c).getError()).isEmpty();
            await().atMost(Duration.ofSeconds(30)).until(() -> h.driver.heldDevices() instanceof HandoverClaims.Known);
        }
    }

    @Test
    void aCheckpointMissingBesideThePreparedClaimsFilesIsLost() throws IOException {
        try (DraHarness h = new DraHarness(root).start(NODE)) {
            ResourceClaim first = Claims.create(h.api.client(), Claims.allocated("first", "u", Claims.ours(A)));
            assertThat(prepare(h, first).getError()).isEmpty();
            h.driver.close();
            Files.delete(h.settings.pluginDir().resolve(Checkpoint.FILE));
            h.pods = () -> new PodResourcesReading.Unreadable("no socket");

            h.restartDriver(NODE);

            assertThat(h.driver.heldDevices()).isInstanceOf(HandoverClaims.Unknown.class);
            ResourceClaim second = Claims.create(h.api.client(), Claims.allocated("second", "u", Claims.ours(A)));
            assertThat(prepare(h, second).getError()).contains("is missing, but claims were prepared here");
        }
    }
}
