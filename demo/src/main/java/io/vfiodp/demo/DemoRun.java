package io.vfiodp.demo;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.pods.NodePods;
import io.vfiodp.testkit.pods.PodResourcesServer;
import io.vfiodp.inventory.Inventory;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * The whole flow on a fixture node bundled in the jar: scan and policy (printed as the
 * inventory), {@code serve} started as a process of its own, registering with an in-process
 * kubelet simulator over unix sockets, what its health and metrics endpoints answer, one
 * allocation per resource as the kubelet would ask for it when it admits a VM's pod, who holds
 * which device then (the inventory and serve's metrics, from the kit's PodResources), then a clean
 * shutdown; then the same node through the DRA driver ({@link DraDemoPart}).
 */
public final class DemoRun {

    /** The bundled node: the t4-numa fixture (two Tesla T4 on two NUMA nodes, and what a real host has around them). */
    public static final String BUNDLED_NODE = "/io/vfiodp/demo/t4-numa.tree";
    public static final List<AllocationPrinter> DEFAULT_PRINTERS = List.of(new EnvAndDeviceSpecPrinter(), new HostdevXmlPrinter());
    /** Where the demo's VM pods run. */
    static final String VM_PODS_NAMESPACE = "vms";
    /** The /metrics samples the demo shows: what the kubelet was told, per resource, and the VFIO check. */
    private static final Set<String> SHOWN_METRICS = Set.of("vfio_dp_devices", "vfio_dp_registrations_total", "vfio_dp_vfio_available");
    /**
     * The longest the demo waits for serve to do one thing (register, list, answer, publish): serve
     * starts in a JVM of its own, which on a loaded 2-core machine takes seconds.
     */
    static final Duration WAIT = Duration.ofSeconds(30);

    /**
     * Starts {@code serve} with these options and these environment variables added, and returns it
     * serving its metrics endpoint.
     *
     * @throws ServeFailure when it ends or fails before serving
     */
    @FunctionalInterface
    public interface ServeStarter {
        RunningServe start(List<String> serveOptions, Map<String, String> env) throws IOException;
    }

    /** {@code serve}, started as a process of its own. */
    public interface RunningServe extends AutoCloseable {
        long pid();

        /** The port of its /metrics, /healthz and /readyz. */
        int metricsPort();

        /** For an error about it: whether it still runs (or how it ended) and its last output lines. */
        String state();

        /**
         * Stops it with SIGTERM, as the kubelet's pod shutdown does, and waits for it to end.
         *
         * @throws ServeFailure when it does not end in time or ends with a status other than 0
         */
        @Override
        void close();
    }

    record HttpAnswer(int status, String body) {}

    /** Which of serve's HTTP endpoints the demo asks. */
    public enum Endpoints {
        /** The kubelet's probes and a Prometheus scrape: what the demo shows. */
        PROBES_AND_METRICS,
        /**
         * The probes alone, as on a node without monitoring: how the image's build trains its class
         * archive, whose every class is loaded at every start (a node without monitoring would load a
         * scrape's text format and snapshots for nothing, docs/benchmarks.md, "Choices in the code"; a node with monitoring
         * loads them at its first scrape).
         */
        PROBES
    }

    private final PrintWriter out;
    private final List<AllocationPrinter> printers;
    private final ServeStarter serve;
    private final DraDemoPart dra;
    private final Endpoints endpoints;
    private final Duration wait;

    /**
     * @param serve how the demo starts its plugin side
     * @param dra   what follows the device-plugin part: the DRA path, or one line why not
     */
    public DemoRun(PrintWriter out, List<AllocationPrinter> printers, ServeStarter serve, DraDemoPart dra) {
        this(out, printers, serve, dra, Endpoints.PROBES_AND_METRICS);
    }

    /** As the shorter constructor, asking serve's {@code endpoints}. */
    public DemoRun(PrintWriter out, List<AllocationPrinter> printers, ServeStarter serve, DraDemoPart dra, Endpoints endpoints) {
        this(out, printers, serve, dra, endpoints, WAIT);
    }

    /** As the longer constructor, waiting at most {@code wait} for serve to register and list its devices. */
    DemoRun(PrintWriter out, List<AllocationPrinter> printers, ServeStarter serve, DraDemoPart dra, Endpoints endpoints, Duration wait) {
        this.out = out;
        this.printers = List.copyOf(printers);
        this.serve = serve;
        this.dra = dra;
        this.endpoints = endpoints;
        this.wait = wait;
    }

    /**
     * What the demo passes to {@code serve}: the node's roots, the simulator's directory, the
     * endpoints on a free loopback port (a fixed one could be taken), no Kubernetes API.
     */
    private static List<String> serveOptions(Path node, Path pluginDir, Path podResources) {
        return List.of("--sysfs-root", node.resolve("sys").toString(), "--dev-root", node.resolve("dev").toString(),
                "--device-plugin-dir", pluginDir.toString(), "--pod-resources-socket", podResources.toString(),
                "--metrics-address", "127.0.0.1:0", "--kubevirt", "off");
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

        Inventory.Outcome.Printed inventory = inventory(node);
        out.println();
        out.println("== Inventory (what `inventory` prints for this node)");
        out.print(inventory.text());

        List<DesiredResource> resources = List.copyOf(inventory.evaluation().result().desiredState().resources().values());
        List<String> names = resources.stream().map(r -> r.name().value()).toList();
        out.println();
        Path podResourcesSocket = Files.createDirectories(workDir.resolve("pod-resources")).resolve("kubelet.sock");
        List<String> options = serveOptions(node, pluginDir, podResourcesSocket);
        out.println("== Kubelet simulator on " + pluginDir.resolve(KubeletSimulator.SOCKET) + ", its PodResources on " + podResourcesSocket
                + " (in this process); starting serve against it as a process of its own, as on a node:");
        out.println("   serve " + String.join(" ", options));
        out.flush();
        Optional<DemoAllocation> allocated;
        NodePods pods = new NodePods();
        try (KubeletSimulator kubelet = KubeletSimulator.start(pluginDir);
             PodResourcesServer podResources = PodResourcesServer.start(podResourcesSocket, pods::list)) {
            try (RunningServe serving = serve.start(options, Map.of())) {
                out.println("   serve runs as process " + serving.pid());
                awaitRegistrations(kubelet, names, serving);
                printRegistrations(kubelet, names);
                printEndpoints(serving.metricsPort());
                allocated = printAllocations(kubelet, pods, resources);
                new HoldersShown(out, wait).print(node, podResourcesSocket, endpoints == Endpoints.PROBES ? OptionalInt.empty()
                        : OptionalInt.of(serving.metricsPort()));
            }
            out.println();
            out.println("== Shut down: the streams ended without an empty device list, plugin sockets removed"
                    + (onlyKubeletSocketLeft(pluginDir) ? "" : " (some sockets are still there!)"));
            printWhatTheKubeletKeeps(kubelet, names);
        }
        dra.run(new DraDemoPart.Setting(out, node, workDir, serve, allocated, endpoints));
        out.flush();
    }

    /** The virt-launcher pod of the demo's VM number {@code i} (from 0), as virt-controller names one: {@code virt-launcher-<VMI>-<5 random>}. */
    static String vmPod(int i) {
        return "virt-launcher-vm" + (i + 1) + "-x7k2p";
    }

    /** After SIGTERM: the kubelet keeps each resource for its grace, which hides a restart or an upgrade of serve. */
    private void printWhatTheKubeletKeeps(KubeletSimulator kubelet, List<String> names) throws InterruptedException, TimeoutException {
        for (String name : names) {
            kubelet.watch(name).awaitEnd(WAIT);
            String kept = kubelet.resource(name).map(r -> "capacity " + r.capacity() + " and allocatable " + r.allocatable()
                    + " (its devices Unhealthy)").orElse("nothing");
            out.println("   the kubelet keeps " + name + " at " + kept + " for its " + KubeletSimulator.STOP_GRACE.toMinutes()
                    + "-minute grace, so a restart or upgrade of serve within it leaves the Node's capacity as it was");
        }
    }

    /** The inventory of the node as the command prints it: pci.ids chosen as serve chooses it, the default policy. */
    private static Inventory.Outcome.Printed inventory(Path node) throws IOException {
        Inventory.Options options = new Inventory.Options(node.resolve("sys"), node.resolve("dev"), Optional.empty(), Optional.empty(),
                Inventory.Format.TABLE, DraRouting.NONE, Map.of());
        return switch (Inventory.run(options)) {
            case Inventory.Outcome.Printed printed -> printed;
            case Inventory.Outcome.Failed failed -> throw new IOException("inventory of the demo node: " + failed.reason());
        };
    }

    private void awaitRegistrations(KubeletSimulator kubelet, List<String> names, RunningServe serving) throws InterruptedException {
        try {
            kubelet.awaitRegistrations(names, 1, wait);
        } catch (TimeoutException e) {
            throw new ServeFailure("serve did not register with the kubelet simulator: " + e.getMessage() + "; " + serving.state());
        }
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
            ListAndWatchResponse devices = kubelet.watch(name).awaitUpdate(u -> true, wait);
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

    private void printEndpoints(int port) throws IOException, InterruptedException {
        out.println();
        out.println("== Health" + (endpoints == Endpoints.PROBES ? "" : " and metrics") + " (what serve's HTTP endpoints answer, on http://127.0.0.1:"
                + port + ")");
        HttpAnswer healthz = get(port, "/healthz");
        out.println("  GET /healthz  " + healthz.status() + "  " + healthz.body().strip());
        // Registered means the kubelet's answer to Register has reached the reconcile loop, a moment
        // after the simulator saw the request: asked again meanwhile, as the kubelet's readiness probe does.
        HttpAnswer readyz = get(port, "/readyz");
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (readyz.status() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(20);
            readyz = get(port, "/readyz");
        }
        out.println("  GET /readyz   " + readyz.status() + "  " + readyz.body().strip());
        if (endpoints == Endpoints.PROBES) return;
        HttpAnswer metrics = get(port, "/metrics");
        List<String> lines = metrics.body().lines().toList();
        List<String> shown = lines.stream().filter(l -> SHOWN_METRICS.contains(l.split("[{ ]", 2)[0])).toList();
        out.println("  GET /metrics  " + metrics.status() + "  " + shown.size() + " of its " + lines.size() + " lines:");
        for (String line : shown) out.println("    " + line);
        if (shown.contains("vfio_dp_vfio_available 0.0")) {
            out.println("  (vfio_dp_vfio_available is 0: the demo node's dev/vfio/vfio is a plain file, which answers no VFIO ioctl)");
        }
    }

    /** One request on a connection of its own, closed after it. */
    static HttpAnswer get(int port, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
        try {
            c.setConnectTimeout((int) WAIT.toMillis());
            c.setReadTimeout((int) WAIT.toMillis());
            int status = c.getResponseCode();
            // Left open for disconnect(): closing the body first would park the connection in the JDK's
            // keep-alive cache, where its socket outlives the demo's server by seconds.
            InputStream body = status < 400 ? c.getInputStream() : c.getErrorStream();
            return new HttpAnswer(status, body == null ? "" : new String(body.readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            c.disconnect();
        }
    }

    /**
     * One VM's virt-launcher pod per resource, admitted as the kubelet admits it (the kit's
     * {@link NodePods}, which its PodResources lists); returns the first allocation, whose device the
     * DRA part claims too.
     */
    private Optional<DemoAllocation> printAllocations(KubeletSimulator kubelet, NodePods pods, List<DesiredResource> resources) {
        Optional<DemoAllocation> first = Optional.empty();
        out.println();
        out.println("== One allocation per resource, as the kubelet asks when it admits a VM's pod (" + VM_PODS_NAMESPACE + "/"
                + vmPod(0) + ", ...): GetPreferredAllocation(1), then Allocate");
        for (int i = 0; i < resources.size(); i++) {
            DesiredResource r = resources.get(i);
            String name = r.name().value();
            List<String> healthy = kubelet.latest(name).map(l -> l.getDevicesList().stream()
                    .filter(d -> d.getHealth().equals("Healthy")).map(Device::getID).toList()).orElse(List.of());
            if (healthy.isEmpty()) {
                out.println("  " + name + ": no healthy device to allocate");
                continue;
            }
            List<String> preferred = kubelet.preferredAllocation(name, healthy, List.of(), 1);
            NodePods.Admission admission = pods.admit(kubelet, VM_PODS_NAMESPACE, vmPod(i),
                    List.of(NodePods.ContainerAsk.named(NodePods.CONTAINER, name, preferred)));
            if (!(admission instanceof NodePods.Admission.Admitted admitted)) {
                out.println("  " + name + ": pod " + vmPod(i) + " refused: " + ((NodePods.Admission.Refused) admission).reason());
                continue;
            }
            var response = admitted.response().getContainerResponses(0);
            out.println("  " + name + ": preferred " + String.join(",", preferred));
            DemoAllocation allocation = new DemoAllocation(r.name(), r.kind(), preferred, response);
            for (AllocationPrinter p : printers) p.print(allocation, out);
            if (first.isEmpty()) first = Optional.of(allocation);
        }
        return first;
    }
}
