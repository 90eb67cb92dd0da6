package io.vfiodp.kernel.guest;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs inside the real-kernel tests' guest until killed: the kubelet simulator on a device-plugin
 * directory and {@code serve} of the image against it on the guest's real {@code /sys} and
 * {@code /dev}, with the rescan period at its default (5 min while uevents arrive, so within a
 * test only uevents and the /dev/vfio watch bring changes). Prints one line per ListAndWatch
 * message the kubelet simulator receives, stamped with the guest's {@code /proc/uptime} (10 ms
 * steps, the clock a shell in the guest reads before it acts):
 *
 * <pre>
 *   started
 *   update RESOURCE UPTIME_MS ID=HEALTH ID=HEALTH ...   (IDs sorted; none when the list is empty)
 * </pre>
 *
 * Usage: {@code ListAndWatchRecorder LAUNCHER CONFIG DIR}; serve's output goes to {@code DIR/../serve.log}.
 */
public final class ListAndWatchRecorder {

    private ListAndWatchRecorder() {}

    public static void main(String[] args) throws Exception {
        Path launcher = Path.of(args[0]);
        Path config = Path.of(args[1]);
        Path dir = Files.createDirectories(Path.of(args[2]));
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir)) {
            Process serve = new ProcessBuilder(launcher.toString(), "serve", "--sysfs-root", "/sys", "--dev-root", "/dev",
                    "--device-plugin-dir", dir.toString(), "--config", config.toString(), "--kubevirt", "off", "--metrics-address", "")
                    .redirectErrorStream(true).redirectOutput(dir.resolveSibling("serve.log").toFile()).start();
            Runtime.getRuntime().addShutdownHook(new Thread(serve::destroy));
            System.out.println("started");
            Map<String, Integer> printed = new HashMap<>();
            while (serve.isAlive()) {
                for (KubeletSimulator.Registration r : kubelet.registrations()) {
                    Watch w = kubelet.watch(r.resourceName());
                    if (w == null) continue;
                    List<ListAndWatchResponse> updates = w.updates();
                    int from = printed.getOrDefault(r.resourceName(), 0);
                    if (updates.size() < from) from = 0; // a new stream after a re-registration
                    if (updates.size() == from) continue;
                    long uptime = uptimeMillis();
                    for (ListAndWatchResponse u : updates.subList(from, updates.size())) print(r.resourceName(), uptime, u);
                    printed.put(r.resourceName(), updates.size());
                }
                // the guest's test fake polls: 10 ms is the uptime clock's own step
                Thread.sleep(10);
            }
            System.out.println("serve exited " + serve.exitValue());
        }
    }

    private static void print(String resource, long uptime, ListAndWatchResponse u) {
        Map<String, String> devices = new TreeMap<>();
        for (Device d : u.getDevicesList()) devices.put(d.getID(), d.getHealth());
        StringBuilder line = new StringBuilder("update ").append(resource).append(' ').append(uptime);
        devices.forEach((id, health) -> line.append(' ').append(id).append('=').append(health));
        System.out.println(line);
    }

    static long uptimeMillis() throws IOException {
        String first = Files.readString(Path.of("/proc/uptime")).split(" ")[0];
        return Math.round(Double.parseDouble(first) * 1000);
    }
}
