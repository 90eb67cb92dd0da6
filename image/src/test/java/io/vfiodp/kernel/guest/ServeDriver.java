package io.vfiodp.kernel.guest;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs inside the real-kernel tests' guest: the kubelet simulator on a device-plugin directory,
 * and {@code serve} of the image as a process of its own against it, on the guest's real
 * {@code /sys} and {@code /dev}. It waits for each resource to register, then, per resource, reads
 * the first ListAndWatch list, asks GetPreferredAllocation for one device and allocates each
 * listed device alone, and allocates each ID of {@code --refuse} (which must be refused). Prints
 * everything as one JSON document, then stops serve with SIGTERM and records its exit status.
 *
 * <p>Usage: {@code ServeDriver LAUNCHER CONFIG DIR RESOURCE[,RESOURCE...] [REFUSED_RESOURCE=ID...]}
 */
public final class ServeDriver {

    /** Registration's and a first list's bound on a quiet machine; the guest's pace applies ({@link Pace}). */
    private static final Duration WAIT = Pace.fromProperty().scale(Duration.ofMinutes(2));

    public static void main(String[] args) throws Exception {
        Path launcher = Path.of(args[0]);
        Path config = Path.of(args[1]);
        Path dir = Path.of(args[2]);
        List<String> resources = Arrays.asList(args[3].split(","));
        List<String> refuse = Arrays.asList(args).subList(4, args.length);
        Files.createDirectories(dir);
        ObjectMapper json = new ObjectMapper();
        ObjectNode out = json.createObjectNode();
        Path log = dir.resolveSibling("serve.log");
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir)) {
            Process serve = new ProcessBuilder(launcher.toString(), "serve", "--sysfs-root", "/sys", "--dev-root", "/dev",
                    "--device-plugin-dir", dir.toString(), "--config", config.toString(), "--kubevirt", "off", "--metrics-address", "")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            long start = System.nanoTime();
            try {
                kubelet.awaitRegistrations(resources, 1, WAIT);
                out.put("registeredAfterMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                ArrayNode registrations = out.putArray("registrations");
                for (KubeletSimulator.Registration r : kubelet.registrations()) {
                    registrations.addObject().put("resource", r.resourceName()).put("endpoint", r.endpoint())
                            .put("preferredAllocation", r.options().getGetPreferredAllocationAvailable());
                }
                ObjectNode byResource = out.putObject("resources");
                for (String resource : resources) {
                    ListAndWatchResponse list = kubelet.watch(resource).awaitUpdate(l -> l.getDevicesCount() > 0, WAIT);
                    ObjectNode r = byResource.putObject(resource);
                    ObjectNode devices = r.putObject("devices");
                    List<String> healthy = new ArrayList<>();
                    for (Device d : list.getDevicesList()) {
                        devices.put(d.getID(), d.getHealth());
                        if (d.getHealth().equals("Healthy")) healthy.add(d.getID());
                    }
                    ArrayNode preferred = r.putArray("preferred");
                    if (!healthy.isEmpty()) kubelet.preferredAllocation(resource, healthy, List.of(), 1).forEach(preferred::add);
                    ObjectNode allocations = r.putObject("allocations");
                    for (String id : healthy) allocations.set(id, allocation(json, kubelet.allocate(resource, List.of(List.of(id)))));
                }
                ObjectNode refused = out.putObject("refused");
                for (String spec : refuse) {
                    String resource = spec.substring(0, spec.indexOf('='));
                    String id = spec.substring(spec.indexOf('=') + 1);
                    try {
                        kubelet.allocate(resource, List.of(List.of(id)));
                        refused.put(id, "granted");
                    } catch (StatusRuntimeException e) {
                        refused.put(id, e.getStatus().getCode() + ": " + e.getStatus().getDescription());
                    }
                }
            } finally {
                serve.destroy(); // SIGTERM, as the kubelet's pod shutdown sends
                out.put("serveExit", serve.waitFor(Pace.fromProperty().scale(Duration.ofSeconds(30)).toSeconds(), TimeUnit.SECONDS)
                        ? serve.exitValue() : -1);
                if (serve.isAlive()) serve.destroyForcibly();
            }
        } catch (Exception e) {
            out.put("error", e.toString());
        }
        out.put("serveLog", Files.exists(log) ? Files.readString(log) : "");
        System.out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(out));
    }

    private static ObjectNode allocation(ObjectMapper json, AllocateResponse response) {
        ContainerAllocateResponse c = response.getContainerResponses(0);
        ObjectNode a = json.createObjectNode();
        ObjectNode envs = a.putObject("envs");
        c.getEnvsMap().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey()).forEach(e -> envs.put(e.getKey(), e.getValue()));
        ArrayNode devices = a.putArray("devices");
        for (DeviceSpec d : c.getDevicesList()) {
            devices.addObject().put("hostPath", d.getHostPath()).put("containerPath", d.getContainerPath()).put("permissions", d.getPermissions());
        }
        return a;
    }
}
