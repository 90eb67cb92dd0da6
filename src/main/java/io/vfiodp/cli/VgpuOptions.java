package io.vfiodp.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.kubevirt.KubeClients;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.kubevirt.DesiredMdevTypes;
import io.vfiodp.kubevirt.NodeEventRecorder;
import io.vfiodp.metrics.PluginMetrics;
import io.vfiodp.plugin.NodeStateSource;
import io.vfiodp.vgpu.Allocated;
import io.vfiodp.vgpu.LayoutConfigFile;
import io.vfiodp.vgpu.LayoutEvents;
import io.vfiodp.vgpu.LayoutExecutor;
import io.vfiodp.vgpu.LayoutManager;
import io.vfiodp.vgpu.LayoutPlanner;
import io.vfiodp.vgpu.LayoutReport;
import io.vfiodp.vgpu.NodeLayoutEvents;
import io.vfiodp.vgpu.OwnedDevices;
import io.vfiodp.vgpu.PlannedWrite;
import io.vfiodp.vgpu.PodResourcesClient;
import io.vfiodp.vgpu.StateFile;
import io.vfiodp.vgpu.SysfsWriter;
import io.vfiodp.vgpu.VgpuLayoutSource;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/** {@code serve}'s vGPU layout options ({@code --manage-vgpus} and friends). */
final class VgpuOptions {

    @Option(names = "--manage-vgpus",
            description = "Create and remove vGPUs (mdev instances, SR-IOV vGPU types) to match the mediatedDevicesConfiguration of --config; "
                    + "needs write access to /sys (env VFIO_DP_MANAGE_VGPUS).")
    boolean manage;

    @Option(names = "--dry-run",
            description = "Print the vGPU layout, desired versus actual per GPU, and the sysfs writes --manage-vgpus would make, then exit; changes nothing.")
    boolean dryRun;

    @Option(names = "--state-dir", defaultValue = "/var/lib/vfio-device-plugin", paramLabel = "DIR",
            description = "Where the record of the vGPUs this plugin created is kept; must survive restarts (default: ${DEFAULT-VALUE}; env VFIO_DP_STATE_DIR).")
    Path stateDir;

    @Option(names = "--pod-resources-socket", defaultValue = "/var/lib/kubelet/pod-resources/kubelet.sock", paramLabel = "FILE",
            description = "The kubelet's PodResources socket, asked which vGPUs are in use before any is removed (default: ${DEFAULT-VALUE}; env VFIO_DP_POD_RESOURCES_SOCKET).")
    Path podResourcesSocket;

    boolean manage() {
        return manage;
    }

    boolean dryRun() {
        return dryRun;
    }

    /** The running layout management; {@link #close()} releases its socket loop. */
    record Managed(NodeStateSource source, PodResourcesClient podResources) implements AutoCloseable {
        @Override
        public void close() {
            podResources.close();
        }
    }

    /**
     * Layout management around {@code serving}. The desired types come from the KubeVirt CR when it
     * lists some for this node ({@code fromCr}), else from the {@code --config} file's block; with a
     * client and a node name, the node's labels select {@code nodeMediatedDeviceTypes} of the file,
     * and Events (through {@code recorder}, the node's one recorder, owned by the caller) and the
     * annotation go to the node; each layout state also goes to {@code metrics}.
     */
    Managed managed(HostOptions host, Supplier<HostSnapshot> scan, NodeStateSource serving, Optional<KubernetesClient> client,
                    Optional<String> nodeName, Optional<NodeEventRecorder> recorder, Supplier<Optional<DesiredMdevTypes>> fromCr,
                    PluginMetrics metrics) {
        LayoutEvents events = LayoutEvents.NONE;
        Supplier<Map<String, String>> labels = Map::of;
        if (client.isPresent() && nodeName.isPresent() && recorder.isPresent()) {
            NodeLayoutEvents nodeEvents = new NodeLayoutEvents(client.get(), nodeName.get(), recorder.get());
            events = nodeEvents;
            labels = nodeEvents::labels;
        }
        events = events.alsoStatesTo(metrics::vgpuLayoutState);
        PodResourcesClient podResources = new PodResourcesClient(podResourcesSocket, Duration.ofSeconds(5));
        StateFile state = new StateFile(stateDir);
        LayoutManager manager = new LayoutManager(scan, podResources::allocated, new LayoutPlanner(() -> UUID.randomUUID().toString()),
                new LayoutExecutor(host.sysfsRoot(), SysfsWriter.KERNEL, state, events), state, events);
        Supplier<Map<String, String>> nodeLabels = labels;
        VgpuLayoutSource.DesiredSource desired = () -> {
            Optional<DesiredMdevTypes> cr = fromCr.get();
            if (cr.isPresent()) return cr;
            return host.config().isEmpty() ? Optional.empty() : LayoutConfigFile.read(host.config().get(), nodeLabels.get());
        };
        return new Managed(new VgpuLayoutSource(desired, manager, serving), podResources);
    }

    /**
     * Prints the layout the KubeVirt CR or else the {@code --config} file asks for; with
     * {@code nodeName}, its labels select the file's {@code nodeMediatedDeviceTypes}.
     *
     * @param fromCr the KubeVirt CR's layout for this node, when the CR was read and lists one: it
     *               wins over {@code --config}, as it does for {@code serve --manage-vgpus}
     */
    int printDryRun(HostOptions host, Optional<String> nodeName, Optional<DesiredMdevTypes> fromCr, PrintWriter out, PrintWriter err) {
        try {
            Map<String, String> labels = Map.of();
            if (fromCr.isEmpty() && nodeName.isPresent()) {
                try (KubernetesClient c = KubeClients.standard()) {
                    labels = new NodeLayoutEvents(c, nodeName.get(), null).labels();
                }
            }
            Optional<DesiredMdevTypes> desired = fromCr.isPresent() || host.config().isEmpty()
                    ? fromCr : LayoutConfigFile.read(host.config().get(), labels);
            if (desired.isEmpty()) {
                out.println("no vGPU layout configured: no KubeVirt CR layout for this node and --config has no mediatedDevicesConfiguration; nothing would be written");
                out.flush();
                return 0;
            }
            HostSnapshot snapshot = new io.vfiodp.host.SysfsScanner(host.sysfsRoot(), host.devRoot()).scan();
            OwnedDevices owned = new StateFile(stateDir).read();
            Allocated allocated;
            try (PodResourcesClient podResources = new PodResourcesClient(podResourcesSocket, Duration.ofSeconds(5))) {
                allocated = podResources.allocated();
            }
            List<PlannedWrite> plan = desired.get().creationEnabled()
                    ? new LayoutPlanner(() -> UUID.randomUUID().toString()).plan(snapshot, desired.get().types(), owned, allocated)
                    : List.of();
            out.print(LayoutReport.table(snapshot, desired.get()));
            out.print(LayoutReport.plan(plan, allocated));
            out.flush();
            return 0;
        } catch (IOException e) {
            err.println("vfio-device-plugin serve --dry-run: " + e.getMessage());
            err.flush();
            return 1;
        }
    }
}
