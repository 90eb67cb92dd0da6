package io.vfiodp.demo;

import io.vfiodp.host.PciIds;
import io.vfiodp.host.SysfsScanner;
import io.vfiodp.inventory.InventoryReport;
import io.vfiodp.inventory.InventoryText;
import io.vfiodp.plugin.PluginRuntime;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.plugin.ScanPolicySource;
import io.vfiodp.plugin.kubelet.KubeletSimulator;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * The whole flow on a fixture node bundled in the jar: scan and policy (printed as the
 * inventory), the real plugin runtime registering with an in-process kubelet simulator over
 * unix sockets, one allocation per resource as the kubelet would ask for it, then a clean
 * shutdown.
 */
public final class DemoRun {

    /** The bundled node: the t4-numa fixture (two Tesla T4 on two NUMA nodes, and what a real host has around them). */
    public static final String BUNDLED_NODE = "/io/vfiodp/demo/t4-numa.tree";
    public static final List<AllocationPrinter> DEFAULT_PRINTERS = List.of(new EnvAndDeviceSpecPrinter());
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final PrintWriter out;
    private final List<AllocationPrinter> printers;

    public DemoRun(PrintWriter out, List<AllocationPrinter> printers) {
        this.out = out;
        this.printers = List.copyOf(printers);
    }

    /** The bundled node's manifest. */
    public static String bundledNode() throws IOException {
        try (InputStream in = DemoRun.class.getResourceAsStream(BUNDLED_NODE)) {
            if (in == null) throw new IOException("the demo node " + BUNDLED_NODE + " is missing from the jar");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * Runs the demo in {@code workDir} (empty; the caller removes it) and returns when everything
     * it started has stopped.
     */
    public void run(Path workDir) throws Exception {
        Path node = workDir.resolve("node");
        TreeManifest.materialise(bundledNode(), node);
        Path pluginDir = Files.createDirectories(workDir.resolve("device-plugins"));
        out.println("== Node: the t4-numa fixture bundled in the jar, rebuilt in " + node + " (sys/ plays /sys, dev/ plays /dev)");

        PciIds pciIds = PciIds.bundled();
        ScanPolicySource source = new ScanPolicySource(new SysfsScanner(node.resolve("sys"), node.resolve("dev"))::scan,
                Optional.empty(), pciIds);
        ScanPolicySource.Evaluation evaluation = source.evaluate();
        out.println();
        out.println("== Inventory (what `inventory` prints for this node)");
        out.print(InventoryText.format(InventoryReport.of(evaluation.snapshot(), evaluation.result(), pciIds, Optional.empty(),
                evaluation.configWarnings())));

        List<DesiredResource> resources = List.copyOf(evaluation.result().desiredState().resources().values());
        List<String> names = resources.stream().map(r -> r.name().value()).toList();
        out.println();
        out.println("== Kubelet simulator on " + pluginDir.resolve(KubeletSimulator.SOCKET) + "; starting serve against it");
        try (KubeletSimulator kubelet = KubeletSimulator.start(pluginDir)) {
            PluginRuntime runtime = PluginRuntime.start(PluginSettings.of(pluginDir, Duration.ofMinutes(10)), source);
            try {
                kubelet.awaitRegistrations(names, 1, WAIT);
                printRegistrations(kubelet, names);
                printAllocations(kubelet, resources);
            } finally {
                runtime.close();
            }
            out.println();
            out.println("== Shut down: final empty device lists sent, plugin sockets removed"
                    + (onlyKubeletSocketLeft(pluginDir) ? "" : " (some sockets are still there!)"));
        }
        out.flush();
    }

    private boolean onlyKubeletSocketLeft(Path pluginDir) throws IOException {
        try (var s = Files.list(pluginDir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sock")).allMatch(KubeletSimulator.SOCKET::equals);
        }
    }

    private void printRegistrations(KubeletSimulator kubelet, List<String> names) throws InterruptedException, TimeoutException {
        out.println();
        out.println("== Registrations the kubelet accepted (version " + KubeletSimulator.VERSION + ")");
        for (KubeletSimulator.Registration r : kubelet.registrations()) {
            out.println("  " + r.resourceName() + "  endpoint " + r.endpoint()
                    + "  preferred-allocation " + r.options().getGetPreferredAllocationAvailable());
        }
        for (String name : names) {
            ListAndWatchResponse devices = kubelet.watch(name).awaitUpdate(u -> true, WAIT);
            StringBuilder sb = new StringBuilder("  " + name + "  ListAndWatch:");
            for (Device d : devices.getDevicesList()) {
                sb.append(' ').append(d.getID()).append(" (").append(d.getHealth());
                if (d.hasTopology() && d.getTopology().getNodesCount() > 0) sb.append(", NUMA ").append(d.getTopology().getNodes(0).getID());
                sb.append(')');
            }
            if (devices.getDevicesCount() == 0) sb.append(" no devices");
            out.println(sb);
        }
    }

    private void printAllocations(KubeletSimulator kubelet, List<DesiredResource> resources) {
        out.println();
        out.println("== One allocation per resource, as the kubelet asks: GetPreferredAllocation(1), then Allocate");
        for (DesiredResource r : resources) {
            String name = r.name().value();
            List<String> healthy = kubelet.latest(name).map(l -> l.getDevicesList().stream()
                    .filter(d -> d.getHealth().equals("Healthy")).map(Device::getID).toList()).orElse(List.of());
            if (healthy.isEmpty()) {
                out.println("  " + name + ": no healthy device to allocate");
                continue;
            }
            List<String> preferred = kubelet.preferredAllocation(name, healthy, List.of(), 1);
            var response = kubelet.allocate(name, List.of(preferred)).getContainerResponses(0);
            out.println("  " + name + ": preferred " + String.join(",", preferred));
            DemoAllocation allocation = new DemoAllocation(r.name(), r.kind(), preferred, response);
            for (AllocationPrinter p : printers) p.print(allocation, out);
        }
    }
}
