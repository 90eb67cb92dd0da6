package io.vfiodp.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.holders.HealthNotices;
import io.vfiodp.holders.Holder;
import io.vfiodp.holders.OfferedDevice;
import io.vfiodp.holders.PodDetails;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.policy.Route;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A held device's health change is an Event on its pod and on the pod's VMI, in their namespace, named so kubectl describe finds it. */
class HolderEventsTest {

    static final OfferedDevice SICK = new OfferedDevice("0000:1a:00.0", ResourceName.of("nvidia.com/TU104GL_TESLA_T4"), Route.DEVICE_PLUGIN,
            "pci-0000-1a-00-0", Health.unhealthy("IOMMU group 24: /dev/vfio/24 missing"));

    @Test
    void theUnhealthyDeviceIsAWarningOnThePodAndOnItsVmiAndItsRecoveryNormalOnBoth() {
        try (MockKubeApi api = MockKubeApi.start().withVmiCrd();
             KubernetesClient client = MockKubeApi.clientFor(api.port());
             NodeEventRecorder recorder = new NodeEventRecorder(client, "node-a", Clock.systemUTC(), 16, Duration.ofMinutes(30))) {
            recorder.start();
            Pod pod = LauncherPodFixtures.createVm(api.client(), "vms", "virt-launcher-vm1-x7k2p", "node-a", "vm1", Optional.of("vm1"));
            String vmiUid = pod.getMetadata().getOwnerReferences().getFirst().getUid();
            Holder.Vmi vmi = new Holder.Vmi("vm1", vmiUid, Optional.of("vm1"));
            PodDetails details = new PodDetails.Known(Map.of("vms/virt-launcher-vm1-x7k2p", new PodDetails.Pod(pod.getMetadata().getUid(),
                    Optional.of(vmi))));
            Holder holder = new Holder("vms", "virt-launcher-vm1-x7k2p", "compute", new Holder.Via.Plugin(SICK.resource().value()), Optional.of(vmi));
            HolderEvents events = new HolderEvents(recorder, () -> details);

            events.tell(List.of(new HealthNotices.Notice(holder, List.of("compute"), SICK)));
            events.tell(List.of(new HealthNotices.Notice(holder, List.of("compute"), SICK.withHealth(Health.HEALTHY))));

            List<Event> posted = await().atMost(Duration.ofSeconds(30)).until(() -> client.v1().events().inNamespace("vms").list().getItems(),
                    l -> l.size() == 4);
            assertThat(posted).filteredOn(e -> e.getInvolvedObject().getKind().equals("Pod")).extracting(Event::getType, Event::getReason,
                    Event::getMessage).containsExactlyInAnyOrder(
                    org.assertj.core.groups.Tuple.tuple("Warning", "VfioDeviceUnhealthy", "device 0000:1a:00.0 (nvidia.com/TU104GL_TESLA_T4), held by"
                            + " container compute, is Unhealthy: IOMMU group 24: /dev/vfio/24 missing"),
                    org.assertj.core.groups.Tuple.tuple("Normal", "VfioDeviceHealthy", "device 0000:1a:00.0 (nvidia.com/TU104GL_TESLA_T4), held by"
                            + " container compute, is Healthy again"));
            assertThat(posted).filteredOn(e -> e.getInvolvedObject().getKind().equals("Pod")).allSatisfy(e -> {
                assertThat(e.getInvolvedObject().getUid()).isEqualTo(pod.getMetadata().getUid());
                assertThat(e.getInvolvedObject().getNamespace()).isEqualTo("vms");
            });
            assertThat(posted).filteredOn(e -> e.getInvolvedObject().getKind().equals("VirtualMachineInstance")).hasSize(2).allSatisfy(e -> {
                assertThat(e.getInvolvedObject().getName()).isEqualTo("vm1");
                assertThat(e.getInvolvedObject().getUid()).isEqualTo(vmiUid);
                assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo("kubevirt.io/v1");
                assertThat(e.getMessage()).contains("held by pod vms/virt-launcher-vm1-x7k2p");
            });
        }
    }

    @Test
    void aPodTheApiDoesNotListGetsNoEvent() {
        try (MockKubeApi api = MockKubeApi.start();
             KubernetesClient client = MockKubeApi.clientFor(api.port());
             NodeEventRecorder recorder = new NodeEventRecorder(client, "node-a", Clock.systemUTC(), 16, Duration.ofMinutes(30))) {
            recorder.start();
            Holder holder = new Holder("vms", "gone", "compute", new Holder.Via.Plugin(SICK.resource().value()), Optional.empty());

            new HolderEvents(recorder, () -> new PodDetails.Unknown("no API")).tell(List.of(new HealthNotices.Notice(holder, List.of("compute"), SICK)));
            // a node event posted after it shows the recorder's queue has been worked through
            recorder.warn("Probe", "after");
            await().atMost(Duration.ofSeconds(30)).until(() -> api.nodeEvents().size() == 1);

            assertThat(client.v1().events().inAnyNamespace().list().getItems()).extracting(Event::getReason).containsExactly("Probe");
        }
    }
}
