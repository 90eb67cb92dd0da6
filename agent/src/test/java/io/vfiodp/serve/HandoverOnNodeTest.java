package io.vfiodp.serve;

import static io.vfiodp.serve.SwitchNode.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.handover.HandoverRecord;
import io.vfiodp.handover.HandoverRecordFile;
import io.vfiodp.policy.DraRouting;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * serve moving a node's resource from the device plugins to DRA and back, as an operator does by
 * rolling out another {@code --dra-resources}: what running pods hold stays where it is until they
 * end, and no device is allocatable both ways meanwhile, across further restarts too.
 */
class HandoverOnNodeTest {

    private static final String A = "0000:1a:00.0";
    private static final String B = "0000:1b:00.0";
    private static final String B1 = "0000:b1:00.0";
    private static final Set<String> HEALTHY = Set.of(A, B, B1);

    @TempDir Path root;

    @Test
    void toDraADevicePluginPodsDeviceStaysOutOfTheSliceUntilThePodEnds() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.NONE)) {
            node.awaitAllocatable(HEALTHY);
            assertThat(node.admit("vm1")).contains(A);

            node.restart(DraRouting.ALL);
            node.awaitSliceOffers(Set.of(B, B1));
            // the stopped plugin's resource stays, nothing allocatable, for the kubelet's grace: no pod gets a device through it
            assertThat(node.allocatable()).isEmpty();
            assertThat(node.admit("vm2")).isEmpty();
            assertThat(node.runWithClaim("vm3", B)).isTrue();

            assertThat(node.end("vm1")).isEmpty();
            node.pass();
            node.awaitSliceOffers(Set.of(A, B, B1));
            assertThat(node.kubelet.registrationsSinceRestart()).extracting(r -> r.resourceName()).containsExactly(SwitchNode.T4);
        }
    }

    @Test
    void backToTheDevicePluginsADeviceAClaimHoldsStaysOutOfTheirListUntilUnprepared() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.ALL)) {
            node.awaitSliceOffers(HEALTHY);
            assertThat(node.runWithClaim("vm1", B1)).isTrue();

            node.restart(DraRouting.NONE);
            // no resource routed to DRA, but the driver runs on: the kubelet unprepares the claim through it
            assertThat(node.draDriverRuns()).isTrue();
            node.awaitAllocatable(Set.of(A, B));
            assertThat(node.sliceOffers()).isEmpty();

            assertThat(node.end("vm1")).isEmpty();
            node.pass();
            node.awaitAllocatable(HEALTHY);
        }
    }

    @Test
    void backToTheDevicePluginsTheSlicesOfThePoolAreGoneBeforeTheyOfferADevice() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.ALL)) {
            node.awaitSliceOffers(HEALTHY);

            node.restart(DraRouting.NONE);
            // the pass hands the driver its empty pool first and waits for the slices to go
            assertThat(node.sliceOffers()).isEmpty();
            node.awaitAllocatable(HEALTHY);
        }
    }

    @Test
    void aRestartWhileAPodHoldsADeviceKeepsItWhereItIs() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.NONE)) {
            node.awaitAllocatable(HEALTHY);
            assertThat(node.admit("vm1")).contains(A);
            node.restart(DraRouting.ALL);
            node.awaitSliceOffers(Set.of(B, B1));

            node.restart(DraRouting.ALL);
            node.awaitSliceOffers(Set.of(B, B1));
            assertThat(node.runWithClaim("vm2", A)).isFalse();

            node.end("vm1");
            node.pass();
            node.awaitSliceOffers(HEALTHY);
        }
    }

    @Test
    void aRestartWhileAClaimHoldsADeviceKeepsItOutOfTheDevicePlugins() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.ALL)) {
            node.awaitSliceOffers(HEALTHY);
            assertThat(node.runWithClaim("vm1", A)).isTrue();
            node.restart(DraRouting.NONE);
            node.awaitAllocatable(Set.of(B, B1));

            node.restart(DraRouting.NONE);
            node.awaitAllocatable(Set.of(B, B1));
            assertThat(node.admit("vm2")).contains(B);

            node.end("vm1");
            node.pass();
            node.awaitAllocatable(HEALTHY);
        }
    }

    @Test
    void whilePodResourcesCannotBeReadNoDeviceTheDevicePluginsOfferedGoesToDra() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.NONE)) {
            node.awaitAllocatable(HEALTHY);
            // the record names every device the device plugin offered
            assertThat(new HandoverRecordFile(node.plugins).load()).isEqualTo(new HandoverRecord.Known(Set.of(A, B, B1, "0000:b2:00.0")));
            node.podResources.unavailable(true);

            node.restart(DraRouting.ALL);
            await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> node.sliceOffers().isEmpty());

            node.podResources.unavailable(false);
            node.pass();
            node.awaitSliceOffers(HEALTHY);
            // shown free: the record forgets them
            assertThat(new HandoverRecordFile(node.plugins).load()).isEqualTo(HandoverRecord.Known.NONE);
        }
    }

    @Test
    void devicesTheDevicePluginsNeverOfferedGoToDraWithoutAskingPodResources() throws Exception {
        try (SwitchNode node = new SwitchNode(root)) {
            node.podResources.unavailable(true);
            node.serve(DraRouting.ALL);

            // PodResources answers UNAVAILABLE: a switch that asked it could not prove them free and would keep them out of the
            // slices. Who holds what asks it all the same (its own reads), and says it cannot tell.
            node.awaitSliceOffers(HEALTHY);
            org.awaitility.Awaitility.await().atMost(SwitchNode.WAIT).until(() -> node.holders().unknownHolders().orElse("").contains("UNAVAILABLE"));
        }
    }
}
