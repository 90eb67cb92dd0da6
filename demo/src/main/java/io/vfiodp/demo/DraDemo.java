package io.vfiodp.demo;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.vfiodp.dra.model.DeviceAttributes;
import io.vfiodp.dra.DraSettings;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.KubeVirtEnv;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.dra.v1.Claim;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import io.vfiodp.proto.pluginregistration.v1.PluginInfo;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The DRA path on the demo's node, as a cluster with DRA runs it: {@code serve --dra-resources all}
 * as a process of its own, registering with the DRA kubelet simulator and publishing the node's
 * ResourceSlice to the mock API server; a ResourceClaim allocated as the scheduler leaves it; then
 * NodePrepareResources, and the CDI spec, the KEP-5304 metadata file and the {@code <hostdev>}
 * virt-launcher would write from them.
 */
final class DraDemo implements DraDemoPart {

    static final String NODE = "demo-node";
    private static final String NAMESPACE = "vms";
    private static final String REQUEST = "gpu";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    // a starter of its own, else the device-plugin part's (the Setting's)
    private final Optional<DemoRun.ServeStarter> serve;

    DraDemo(Optional<DemoRun.ServeStarter> serve) {
        this.serve = serve;
    }

    @Override
    public void run(Setting s) throws Exception {
        PrintWriter out = s.out();
        Path registry = Files.createDirectories(s.workDir().resolve("plugins_registry"));
        Path pluginDir = s.workDir().resolve("plugins").resolve(DraSettings.DEFAULT_DRIVER);
        Path cdi = s.workDir().resolve("cdi");
        List<String> options = List.of("--sysfs-root", s.node().resolve("sys").toString(), "--dev-root", s.node().resolve("dev").toString(),
                "--device-plugin-dir", Files.createDirectories(s.workDir().resolve("dra-device-plugins")).toString(),
                "--metrics-address", "127.0.0.1:0", "--kubevirt", "off", "--node-name", NODE, "--dra-resources", "all",
                "--dra-registry-dir", registry.toString(), "--dra-plugin-dir", pluginDir.toString(), "--cdi-dir", cdi.toString());
        out.println();
        try (DemoApiServer api = DemoApiServer.start();
             DraKubeletSimulator kubelet = new DraKubeletSimulator(registry, DraKubeletSimulator.KUBELET_136)) {
            api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
            out.println("== DRA: the same node, every resource through the DRA driver; fabric8's mock API server (CRUD) on " + api.url()
                    + " with Node " + NODE + ", and a DRA kubelet simulator (kubelet 1.36) on " + registry + ", both in this process:");
            s.allocated().ifPresent(a -> ExtendedResourceDemo.applyClass(out, api, a.resource()));
            out.println("   serve " + String.join(" ", options));
            out.flush();
            try (DemoRun.RunningServe serving = serve.orElse(s.serve()).start(options, Map.of("KUBERNETES_MASTER", api.url()))) {
                out.println("   serve runs as process " + serving.pid() + " (KUBERNETES_MASTER=" + api.url() + ")");
                register(out, kubelet, serving);
                ResourceSlice slice = awaitSlice(api, serving);
                printSlice(out, slice);
                Device device = chosen(slice, s.allocatedDevice());
                ResourceClaim claim = allocate(out, api, device);
                prepare(out, kubelet, claim, cdi, pluginDir);
                String uid = claim.getMetadata().getUid();
                String error = kubelet.unprepare(DraKubeletSimulator.claim(NAMESPACE, claim.getMetadata().getName(), uid))
                        .getClaimsOrThrow(uid).getError();
                out.println();
                out.println("== NodeUnprepareResources (the VM's pod is gone): " + (error.isEmpty() ? "ok" : error) + "; CDI specs left in "
                        + cdi + ": " + listing(cdi).size());
                if (s.allocated().isPresent()) ExtendedResourceDemo.run(out, api, kubelet, cdi, s.allocated().get(), device.getName(), serving, s.endpoints());
            }
            out.println("== Shut down: serve stopped, its registration and DRA sockets removed"
                    + (listing(registry).isEmpty() ? "" : " (some sockets are still there!)"));
        }
        out.flush();
    }

    private static void register(PrintWriter out, DraKubeletSimulator kubelet, DemoRun.RunningServe serving) throws Exception {
        Path socket = await("a registration socket in the kubelet's plugin registry", serving,
                () -> kubelet.registrationSockets().stream().findFirst());
        DraKubeletSimulator.Registered r = kubelet.register(socket);
        PluginInfo info = r.info();
        out.println();
        out.println("== Registration (the kubelet's plugin watcher found " + socket.getFileName() + ")");
        out.println("  GetInfo: " + info.getType() + " " + info.getName() + ", endpoint " + info.getEndpoint() + ", services "
                + info.getSupportedVersionsList() + "; the kubelet uses " + r.service());
        DemoRun.HttpAnswer readyz = await("/readyz to answer 200", serving, () -> {
            DemoRun.HttpAnswer a = DemoRun.get(serving.metricsPort(), "/readyz");
            return a.status() == 200 ? Optional.of(a) : Optional.empty();
        });
        out.println("  GET /readyz  " + readyz.status() + "  " + readyz.body().strip());
    }

    private static ResourceSlice awaitSlice(DemoApiServer api, DemoRun.RunningServe serving) throws Exception {
        return await("the node's ResourceSlice in the API", serving, () -> api.client().dynamicResourceAllocation().v1().resourcesSlices()
                .list().getItems().stream().filter(sl -> !sl.getSpec().getDevices().isEmpty()).findFirst());
    }

    private static void printSlice(PrintWriter out, ResourceSlice slice) {
        out.println();
        out.println("== ResourceSlice " + slice.getMetadata().getName() + " (driver " + slice.getSpec().getDriver() + ", pool "
                + slice.getSpec().getPool().getName() + " generation " + slice.getSpec().getPool().getGeneration() + ", node "
                + slice.getSpec().getNodeName() + ", owned by Node " + slice.getMetadata().getOwnerReferences().getFirst().getName()
                + "); an unhealthy device stays in, tainted with the reason");
        for (Device d : slice.getSpec().getDevices()) {
            out.println("  " + d.getName() + "  " + String.join(", ", new TreeMap<>(d.getAttributes()).entrySet().stream()
                    .map(e -> e.getKey() + "=" + value(e.getValue())).toList()));
            if (d.getTaints() != null) {
                for (DeviceTaint t : d.getTaints()) out.println("      taint " + t.getKey() + "=" + t.getValue() + ":" + t.getEffect());
            }
        }
    }

    private static String value(DeviceAttribute a) {
        if (a.getString() != null) return a.getString();
        if (a.getInt() != null) return a.getInt().toString();
        if (a.getBool() != null) return a.getBool().toString();
        return String.valueOf(a.getVersion());
    }

    /** The device Allocate handed out, found by its PCI address; the slice's first without one. */
    private static Device chosen(ResourceSlice slice, Optional<String> address) {
        List<Device> devices = slice.getSpec().getDevices();
        return address.flatMap(a -> devices.stream().filter(d -> attribute(d, DeviceAttributes.PCI_BUS_ID).equals(a)).findFirst())
                .orElse(devices.getFirst());
    }

    private static String attribute(Device d, String name) {
        DeviceAttribute a = d.getAttributes().get(name);
        return a == null || a.getString() == null ? "" : a.getString();
    }

    /** The claim as the scheduler leaves it: its status names the device, in this node's pool. */
    private static ResourceClaim allocate(PrintWriter out, DemoApiServer api, Device device) {
        ResourceClaim claim = new ResourceClaimBuilder()
                .withNewMetadata().withNamespace(NAMESPACE).withName("vm-gpu").endMetadata()
                .withNewSpec().withNewDevices().addNewRequest().withName(REQUEST).withNewExactly()
                .withDeviceClassName(attribute(device, DeviceAttributes.KIND) + "." + DraSettings.DEFAULT_DRIVER).endExactly().endRequest().endDevices().endSpec()
                .withNewStatus().withNewAllocation().withNewDevices().addNewResult().withRequest(REQUEST).withDriver(DraSettings.DEFAULT_DRIVER)
                .withPool(NODE).withDevice(device.getName()).endResult().endDevices().endAllocation().endStatus()
                .build();
        ResourceClaim stored = api.client().dynamicResourceAllocation().v1().resourceClaims().inNamespace(NAMESPACE).resource(claim).create();
        out.println();
        out.println("== ResourceClaim " + NAMESPACE + "/vm-gpu, allocated as the scheduler leaves it: request " + REQUEST + " -> "
                + device.getName() + " in pool " + NODE + (attribute(device, DeviceAttributes.PCI_BUS_ID).isEmpty() ? ""
                : " (" + attribute(device, DeviceAttributes.PCI_BUS_ID) + ", the device Allocate handed out above)"));
        return stored;
    }

    private static void prepare(PrintWriter out, DraKubeletSimulator kubelet, ResourceClaim claim, Path cdi, Path pluginDir) throws IOException {
        String uid = claim.getMetadata().getUid();
        Claim c = DraKubeletSimulator.claim(NAMESPACE, claim.getMetadata().getName(), uid);
        NodePrepareResourceResponse prepared = kubelet.prepare(c).getClaimsOrThrow(uid);
        out.println();
        out.println("== NodePrepareResources, as the kubelet asks before it starts the VM's pod");
        if (!prepared.getError().isEmpty()) {
            out.println("  refused: " + prepared.getError());
            return;
        }
        for (var d : prepared.getDevicesList()) {
            out.println("  " + d.getRequestNamesList() + " " + d.getPoolName() + "/" + d.getDeviceName() + "  CDI devices "
                    + d.getCdiDeviceIdsList());
        }
        for (Path spec : listing(cdi)) {
            out.println("  CDI spec " + spec + " (the container runtime applies it):");
            printJson(out, Files.readString(spec));
        }
        List<Path> metadata;
        try (Stream<Path> walk = Files.walk(pluginDir)) {
            metadata = walk.filter(p -> p.getFileName().toString().equals("metadata.json")).sorted().toList();
        }
        for (Path file : metadata) {
            out.println("  KEP-5304 metadata " + file + " (mounted into the pod, where virt-launcher reads it):");
            String text = Files.readString(file);
            printJson(out, text);
            printHostdev(out, JSON.readTree(text));
        }
    }

    /**
     * The {@code <hostdev>} for the metadata's device: virt-launcher takes the address from
     * {@code resource.kubernetes.io/pciBusID} (or the mdev's UUID) where the device-plugin path has
     * it from the env var; written here by the same printer as there.
     */
    private static void printHostdev(PrintWriter out, JsonNode metadata) {
        for (JsonNode request : metadata.path("requests")) {
            for (JsonNode device : request.path("devices")) {
                JsonNode attributes = device.path("attributes");
                String resource = attributes.path("resourceName").path("string").asString("");
                String mdev = attributes.path(DeviceAttributes.MDEV_UUID).path("string").asString("");
                String pci = attributes.path(DeviceAttributes.PCI_BUS_ID).path("string").asString("");
                if (resource.isEmpty() || (mdev.isEmpty() && pci.isEmpty())) continue;
                DeviceKind kind = mdev.isEmpty() ? DeviceKind.PCI : DeviceKind.MDEV;
                String id = mdev.isEmpty() ? pci : mdev;
                ContainerAllocateResponse env = ContainerAllocateResponse.newBuilder()
                        .putEnvs(KubeVirtEnv.variableName(kind, resource), id).build();
                out.println("    from the metadata's " + (mdev.isEmpty() ? DeviceAttributes.PCI_BUS_ID : DeviceAttributes.MDEV_UUID) + " " + id
                        + ", where the device-plugin path has " + KubeVirtEnv.variableName(kind, resource) + ":");
                new HostdevXmlPrinter().print(new DemoAllocation(ResourceName.of(resource), kind, List.of(id), env), out);
            }
        }
    }

    private static void printJson(PrintWriter out, String text) {
        String pretty = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(JSON.readTree(text));
        pretty.lines().forEach(l -> out.println("      " + l));
    }

    private static List<Path> listing(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> !p.getFileName().toString().startsWith(".")).sorted().toList();
        }
    }

    /** What {@code probe} finds once it finds something, asked every 20 ms for up to 10 s. */
    private static <T> T await(String what, DemoRun.RunningServe serving, Callable<Optional<T>> probe) throws Exception {
        long deadline = System.nanoTime() + DemoRun.WAIT.toNanos();
        while (true) {
            Optional<T> v = probe.call();
            if (v.isPresent()) return v.get();
            if (System.nanoTime() > deadline) throw new ServeFailure("waited " + DemoRun.WAIT.toSeconds() + " s for " + what + "; " + serving.state());
            Thread.sleep(20);
        }
    }
}
