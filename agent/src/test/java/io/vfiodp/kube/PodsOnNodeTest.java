package io.vfiodp.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.holders.Holder;
import io.vfiodp.holders.PodDetails;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The pods of this node from the API: their VMIs and those VMIs' VMs; without the API, why not. */
class PodsOnNodeTest {

    static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void theWatchKnowsEachLauncherPodsVmiAndVmAndFollowsNewPods() {
        try (MockKubeApi api = MockKubeApi.start().withVmiCrd();
             KubernetesClient client = MockKubeApi.clientFor(api.port())) {
            LauncherPodFixtures.createVm(api.client(), "vms", "virt-launcher-vm1-x7k2p", "node-a", "vm1", Optional.of("vm1"));
            LauncherPodFixtures.createVm(api.client(), "vms", "virt-launcher-lone-abcde", "node-a", "lone", Optional.empty());
            LauncherPodFixtures.createVm(api.client(), "vms", "virt-launcher-far-zzzzz", "node-b", "far", Optional.of("far"));
            AtomicInteger changes = new AtomicInteger();
            try (PodsOnNode pods = PodsOnNode.create(client, "node-a")) {
                assertThat(pods.details()).isInstanceOf(PodDetails.Unknown.class);
                pods.start(changes::incrementAndGet);

                await().atMost(WAIT).until(() -> pods.details() instanceof PodDetails.Known k && k.pods().size() == 2);
                assertThat(pods.details().vmiOf("vms", "virt-launcher-vm1-x7k2p")).hasValueSatisfying(v -> {
                    assertThat(v.name()).isEqualTo("vm1");
                    assertThat(v.vm()).contains("vm1");
                });
                assertThat(pods.details().vmiOf("vms", "virt-launcher-lone-abcde")).hasValueSatisfying(v -> assertThat(v.vm()).isEmpty());
                assertThat(pods.details().pod("vms", "virt-launcher-far-zzzzz")).isEmpty();

                int before = changes.get();
                api.client().pods().inNamespace("vms").resource(LauncherPodFixtures.plain("vms", "plain", "node-a")).create();
                await().atMost(WAIT).until(() -> pods.details().pod("vms", "plain").isPresent());
                assertThat(changes.get()).isGreaterThan(before);
                assertThat(pods.details().vmiOf("vms", "plain")).isEmpty();
            }
        }
    }

    @Test
    void aVmiThatCannotBeReadLeavesItsVmUnknownNotThePod() {
        try (MockKubeApi api = MockKubeApi.start().withVmiCrd();
             KubernetesClient client = MockKubeApi.clientFor(api.port())) {
            // the pod names a VMI the API does not hold (a VMI's read forbidden or gone reads the same: no VM)
            api.client().pods().inNamespace("vms").resource(LauncherPodFixtures.launcher("vms", "virt-launcher-vm1-x7k2p", "node-a", "vm1",
                    "vmi-uid-1")).create();
            try (PodsOnNode pods = PodsOnNode.create(client, "node-a")) {
                pods.start(() -> { });

                await().atMost(WAIT).until(() -> pods.details().vmiOf("vms", "virt-launcher-vm1-x7k2p").isPresent());
                assertThat(pods.details().vmiOf("vms", "virt-launcher-vm1-x7k2p")).contains(new Holder.Vmi("vm1", "vmi-uid-1", Optional.empty()));
            }
        }
    }

    @Test
    void whileTheApiIsDownThePodsAreUnknownAndSayWhy() {
        int port = MockKubeApi.freePort();
        try (KubernetesClient client = MockKubeApi.clientFor(port);
             PodsOnNode pods = PodsOnNode.create(client, "node-a")) {
            pods.start(() -> { });

            await().atMost(WAIT).until(() -> pods.details() instanceof PodDetails.Unknown u && u.reason().contains("unreachable"));
            assertThat(((PodDetails.Unknown) pods.details()).reason()).startsWith("cannot list the pods of node node-a: API server unreachable");
        }
    }

    @Test
    void aCommandWithoutApiOrNodeNameSaysWhichIsMissing() {
        assertThat(PodsOnNode.readOnce(Optional.empty(), Optional.of("node-a"), () -> {
            throw new AssertionError("no client is made without an API");
        })).isEqualTo(new PodDetails.Unknown("no Kubernetes API is configured (not in a pod, no kubeconfig)"));
        assertThat(PodsOnNode.readOnce(Optional.empty(), Optional.empty(), () -> {
            throw new AssertionError("no client is made without a node name");
        })).isInstanceOfSatisfying(PodDetails.Unknown.class, u -> assertThat(u.reason()).startsWith("no node name"));
    }

    @Test
    void aCommandListsThePodsOnce() {
        try (MockKubeApi api = MockKubeApi.start().withVmiCrd()) {
            LauncherPodFixtures.createVm(api.client(), "vms", "virt-launcher-vm1-x7k2p", "node-a", "vm1", Optional.of("vm1"));

            PodDetails details = PodsOnNode.readOnce(Optional.of("the test's"), Optional.of("node-a"), () -> MockKubeApi.clientFor(api.port()));

            assertThat(details.vmiOf("vms", "virt-launcher-vm1-x7k2p")).hasValueSatisfying(v -> assertThat(v.vm()).contains("vm1"));
        }
    }
}
