package io.vfiodp.serve;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.policy.config.ConfigSource.LayoutSetting;
import io.vfiodp.kubelet.PodResourcesClient;
import io.vfiodp.vgpu.Allocated;
import io.vfiodp.vgpu.LayoutPlanner;
import io.vfiodp.vgpu.LayoutReport;
import io.vfiodp.vgpu.OwnedDevices;
import io.vfiodp.vgpu.PlannedWrite;
import io.vfiodp.vgpu.StateFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.List;
import java.util.UUID;

/**
 * {@code serve --dry-run}: the vGPU layout the configuration asks for (the KubeVirt CR's when it
 * lists types for this node, else the {@code --config} file's, read as serving reads them), desired
 * versus actual per GPU, and the sysfs writes {@code --manage-vgpus} would make. Changes nothing.
 */
public final class DryRun {

    private DryRun() {}

    /** Prints the report to {@code out}; the exit status (1, with the reason on {@code err}, when the layout cannot be read). */
    public static int print(ServeConfig config, PrintWriter out, PrintWriter err) {
        LayoutSetting layout;
        try (Closer closer = new Closer()) {
            ServingMetrics unpublished = new ServingMetrics(new PrometheusRegistry(), config.version(), Clock.systemUTC());
            layout = ConfigWiring.start(config, unpublished, closer).configs().current().layout();
        } catch (IllegalStateException e) {
            layout = new LayoutSetting.Unreadable(e.getMessage());
        }
        return print(config, layout, out, err);
    }

    /** As {@link #print(ServeConfig, PrintWriter, PrintWriter)}, for a layout already read. */
    static int print(ServeConfig config, LayoutSetting layout, PrintWriter out, PrintWriter err) {
        try {
            switch (layout) {
                case LayoutSetting.None n -> out.println("no vGPU layout configured: no KubeVirt CR layout for this node and --config has no"
                        + " mediatedDevicesConfiguration; nothing would be written");
                case LayoutSetting.Unreadable u -> {
                    err.println("vfio-device-plugin serve --dry-run: " + u.problem());
                    return 1;
                }
                case LayoutSetting.Desired d -> {
                    HostSnapshot snapshot = new SysfsScanner(config.sysfsRoot(), config.devRoot()).scan();
                    OwnedDevices owned = new StateFile(config.vgpu().stateDir()).read();
                    Allocated allocated;
                    try (PodResourcesClient podResources = new PodResourcesClient(config.vgpu().podResourcesSocket(),
                            VgpuWiring.POD_RESOURCES_TIMEOUT)) {
                        allocated = Allocated.of(podResources.read());
                    }
                    List<PlannedWrite> plan = d.types().creationEnabled()
                            ? new LayoutPlanner(() -> UUID.randomUUID().toString()).plan(snapshot, d.types().types(), owned, allocated)
                            : List.of();
                    out.print(LayoutReport.table(snapshot, d.types()));
                    out.print(LayoutReport.plan(plan, allocated));
                }
            }
            return 0;
        } catch (IOException e) {
            err.println("vfio-device-plugin serve --dry-run: " + e.getMessage());
            return 1;
        } finally {
            out.flush();
            err.flush();
        }
    }
}
