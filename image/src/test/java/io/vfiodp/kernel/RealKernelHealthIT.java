package io.vfiodp.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Device health on a real Linux kernel, as the kubelet sees it: {@code serve} of the image runs
 * in the guest against the kubelet simulator ({@code io.vfiodp.kernel.guest.ListAndWatchRecorder}),
 * its full rescan at the default period (5 min under uevents, longer than this class runs), and
 * each host change below must reach ListAndWatch as exactly the expected device list: an unbind
 * from vfio-pci and the rebind, a group mate switched to a host driver and back (its group's node
 * stays, so only uevents tell), a device's own switch from virtio-pci to vfio-pci and back, and a
 * PCIe hot-add and hot-remove through QMP. Each test puts the guest back as it found it. Prints
 * the time from the guest's clock before the change to the message's arrival (10 ms steps).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(KernelTestBed.class)
class RealKernelHealthIT {

    private static final String EDU = "qemu.test/edu";
    private static final String DISPLAY = "qemu.test/display";
    private static final String RNG = "qemu.test/rng";
    private static final String LOG = "/tmp/list-and-watch.log";
    /** A ListAndWatch message's bound on a quiet machine, the first (two JVM starts in the guest) included; paced. */
    private static final Duration UPDATE = Duration.ofSeconds(60);
    private static final Map<String, String> BOTH_EDUS = Map.of(Guest.EDU, "Healthy", Guest.EDU_BEHIND_BRIDGE_1, "Healthy");

    private Guest guest;

    /** One ListAndWatch message as the recorder printed it. */
    record Update(String resource, long uptimeMillis, Map<String, String> devices) {
        static Update parse(String line) {
            String[] f = line.split(" ");
            Map<String, String> devices = new TreeMap<>();
            for (String d : Arrays.asList(f).subList(3, f.length)) devices.put(d.substring(0, d.indexOf('=')), d.substring(d.indexOf('=') + 1));
            return new Update(f[1], Long.parseLong(f[2]), devices);
        }
    }

    @BeforeAll
    void bootAndServe(Guest shared) throws Exception {
        guest = shared;
        GuestHosts.writeConfig(guest);
        GuestHosts.bindServedToVfio(guest);
        long start = System.nanoTime();
        guest.ok(guest.java("io.vfiodp.kernel.guest.ListAndWatchRecorder", guest.image().imageDir().resolve("bin/vfio-device-plugin").toString(),
                GuestHosts.CONFIG_PATH, "/run/dp/plugins") + " > " + LOG + " 2>/tmp/list-and-watch.err &");
        awaitList(EDU, 0, BOTH_EDUS);
        awaitList(DISPLAY, 0, Map.of(Guest.BOCHS, "Healthy"));
        System.out.printf("real kernel: the first ListAndWatch lists came %.1f s after the recorder's start (bound %s)%n",
                (System.nanoTime() - start) / 1e9, guest.paced(UPDATE));
        assertThat(guest.ok("cat /run/dp/serve.log")).contains("kernel uevents: listening");
    }

    @Test
    void anUnbindFromVfioPciAndTheRebindReachTheKubelet() throws Exception {
        String d = "/sys/bus/pci/devices/" + Guest.EDU;
        timed("unbind from vfio-pci", "echo > " + d + "/driver_override; echo " + Guest.EDU + " > " + d + "/driver/unbind",
                EDU, Map.of(Guest.EDU, "Unhealthy", Guest.EDU_BEHIND_BRIDGE_1, "Healthy"));
        timed("rebind to vfio-pci", Guest.bindScript(Guest.EDU, "vfio-pci"), EDU, BOTH_EDUS);
    }

    @Test
    void aGroupMateOnAHostDriverTurnsItsGroupUnhealthyThroughUeventsAlone() throws Exception {
        timed("group mate vfio-pci -> virtio-pci", Guest.bindScript(Guest.RNG_BEHIND_BRIDGE, "virtio-pci"),
                EDU, Map.of(Guest.EDU, "Healthy", Guest.EDU_BEHIND_BRIDGE_1, "Unhealthy"));
        timed("group mate virtio-pci -> vfio-pci", Guest.bindScript(Guest.RNG_BEHIND_BRIDGE, "vfio-pci"), EDU, BOTH_EDUS);
    }

    @Test
    void aDeviceSwitchedFromItsHostDriverToVfioPciIsServedAndWithdrawnWhenItGoesBack() throws Exception {
        timed("virtio-pci -> vfio-pci (new resource)", Guest.bindScript(Guest.RNG, "vfio-pci"), RNG, Map.of(Guest.RNG, "Healthy"));
        timed("vfio-pci -> virtio-pci (resource withdrawn)", Guest.bindScript(Guest.RNG, "virtio-pci"), RNG, Map.of());
    }

    @Test
    void aHotAddClaimedByVfioPciAndTheHotRemoveReachTheKubelet() throws Exception {
        String port = "rp6";
        String address = Guest.HOTPLUG_PORTS.get(port);
        // vfio-pci claims the new card at once, as its ids= or a driverctl override would
        guest.ok("echo 1234 11e8 > /sys/bus/pci/drivers/vfio-pci/new_id");
        try {
            Map<String, String> three = new TreeMap<>(BOTH_EDUS);
            three.put(address, "Healthy");
            timed("hot-add (QMP device_add)", () -> guest.qmp().execute("device_add", Map.of("driver", "edu", "id", "hot-edu", "bus", port)),
                    EDU, three);
        } finally {
            guest.ok("echo 1234 11e8 > /sys/bus/pci/drivers/vfio-pci/remove_id");
        }
        Map<String, String> leaving = new TreeMap<>(BOTH_EDUS);
        leaving.put(address, "Unhealthy");
        int from = lines().size();
        timed("hot-remove (QMP device_del)", () -> guest.qmp().execute("device_del", Map.of("id", "hot-edu")), EDU, leaving);
        // listed that once, then dropped: by the pass for the kernel's next burst, else NodeLoop.DEPARTED_KEPT later
        awaitList(EDU, from, BOTH_EDUS);
        assertThat(GuestHosts.sysfs(guest)).doesNotContainKey(address);
    }

    /** Something done from outside the guest (QMP). */
    private interface Action {
        void run() throws Exception;
    }

    private void timed(String what, String script, String resource, Map<String, String> expected) throws Exception {
        int from = lines().size();
        String out = guest.ok("cut -d' ' -f1 /proc/uptime\n" + script);
        report(what, from, millis(out), resource, expected);
    }

    private void timed(String what, Action action, String resource, Map<String, String> expected) throws Exception {
        int from = lines().size();
        long before = millis(guest.ok("cut -d' ' -f1 /proc/uptime"));
        action.run();
        report(what, from, before, resource, expected);
    }

    private void report(String what, int from, long before, String resource, Map<String, String> expected) throws Exception {
        Update u = awaitList(resource, from, expected);
        System.out.printf("real kernel: %-45s -> ListAndWatch %s in %d ms%n", what, resource, u.uptimeMillis() - before);
    }

    private static long millis(String uptimeLine) {
        return Math.round(Double.parseDouble(uptimeLine.strip().split("\n")[0]) * 1000);
    }

    /**
     * The first message for {@code resource} after line {@code from} that lists exactly
     * {@code expected}; fails naming every message seen when none does within {@link #UPDATE} at the guest's pace.
     */
    private Update awaitList(String resource, int from, Map<String, String> expected) {
        List<List<Update>> seen = new ArrayList<>();
        Duration within = guest.paced(UPDATE);
        try {
            Awaitility.await(resource + " listing " + expected).atMost(within).pollInterval(Duration.ofMillis(200)).until(() -> {
                List<String> all = lines();
                List<Update> after = new ArrayList<>();
                for (String l : all.subList(Math.min(from, all.size()), all.size())) {
                    if (l.startsWith("update " + resource + " ")) after.add(Update.parse(l));
                }
                seen.add(after);
                return after.stream().anyMatch(u -> u.devices().equals(expected));
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(resource + ": no ListAndWatch message listing " + expected + " within " + within + "; messages: "
                    + (seen.isEmpty() ? List.of() : seen.getLast()) + "\n--- serve.log:\n" + serveLog(), e);
        }
        return seen.getLast().stream().filter(u -> u.devices().equals(expected)).findFirst().orElseThrow();
    }

    private String serveLog() {
        try {
            return guest.ok("tail -n 40 /run/dp/serve.log");
        } catch (Exception e) {
            return "(unreadable: " + e + ")";
        }
    }

    private List<String> lines() throws Exception {
        String out = guest.ok("cat " + LOG + " 2>/dev/null || true");
        return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
    }
}
