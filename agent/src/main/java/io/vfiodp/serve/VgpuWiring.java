package io.vfiodp.serve;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.kube.NodeEventRecorder;
import io.vfiodp.kube.NodeLayoutEvents;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.vgpu.LayoutEvents;
import io.vfiodp.vgpu.LayoutExecutor;
import io.vfiodp.vgpu.LayoutManager;
import io.vfiodp.vgpu.LayoutPlanner;
import io.vfiodp.kubelet.PodResourcesClient;
import io.vfiodp.vgpu.KubeletAllocations;
import io.vfiodp.vgpu.StateFile;
import io.vfiodp.vgpu.SysfsWriter;
import io.vfiodp.vgpu.VgpuLayoutPhase;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/** {@code serve --manage-vgpus}: the layout step of every pass, with its state file, the kubelet's PodResources and Node Events. */
final class VgpuWiring {

    static final Duration POD_RESOURCES_TIMEOUT = Duration.ofSeconds(5);

    private VgpuWiring() {}

    /** The layout step when serve manages vGPUs, else empty; it asks {@code podResources} (there when it does) which vGPUs are in use. */
    static Optional<VgpuLayoutPhase> start(ServeConfig config, Supplier<HostSnapshot> scan, Optional<KubernetesClient> client,
                                          Optional<NodeEventRecorder> recorder, ServingMetrics metrics, Optional<PodResourcesClient> podResources) {
        if (!config.vgpu().manage()) return Optional.empty();
        LayoutEvents events = LayoutEvents.NONE;
        if (client.isPresent() && config.nodeName().isPresent() && recorder.isPresent()) {
            events = new NodeLayoutEvents(client.get(), config.nodeName().get(), recorder.get());
        }
        events = countedIn(events, metrics);
        PodResourcesClient kubelet = podResources.orElseThrow();
        StateFile state = new StateFile(config.vgpu().stateDir());
        LayoutManager manager = new LayoutManager(scan, new KubeletAllocations(kubelet::read), new LayoutPlanner(() -> UUID.randomUUID().toString()),
                new LayoutExecutor(config.sysfsRoot(), SysfsWriter.KERNEL, state, events), state, events);
        return Optional.of(new VgpuLayoutPhase(manager));
    }

    /** {@code events}, each state also set in the metrics. */
    static LayoutEvents countedIn(LayoutEvents events, ServingMetrics metrics) {
        return events.alsoStatesTo(state -> metrics.vgpuLayoutState(state.wireValue()));
    }
}
