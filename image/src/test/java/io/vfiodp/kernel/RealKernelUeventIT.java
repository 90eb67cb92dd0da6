package io.vfiodp.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Kernel uevents on a real Linux kernel, as {@code io.vfiodp.host.uevent.UeventSocket} receives them
 * ({@code io.vfiodp.kernel.guest.UeventRecorder} in the guest): a bind to vfio-pci, an unbind, a
 * switch from virtio-pci to vfio-pci, a PCIe hot-add and hot-remove through QMP. Each produces the
 * events the parser turns into the devices to read again, and after each event the incremental
 * rescan of those devices on the real /sys and /dev equals a full scan. Also: a pod's own network
 * namespace still receives uevents, a user namespace's does not, and the socket says so.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(KernelTestBed.class)
class RealKernelUeventIT {

    /** The kernel's events' (and QEMU's hot-remove's) bound on a quiet machine; paced. */
    private static final Duration EVENTS = Duration.ofSeconds(60);
    private static final String LOG = "/tmp/uevents.log";

    private Guest guest;

    @BeforeAll
    void bootAndListen(Guest shared) throws Exception {
        guest = shared;
        guest.ok(guest.java("io.vfiodp.kernel.guest.UeventRecorder") + " > " + LOG + " 2>/tmp/uevents.err &");
        awaitLines(LOG, 0, List.of("open: opened"));
    }

    @Test
    void aBindToVfioPciIsAGroupNodeThenTheBindAndTheNodeIsThereFirst() throws Exception {
        act(() -> guest.unbind(Guest.EDU), List.of());
        String group = GuestHosts.sysfs(guest).get(Guest.EDU).group();

        List<String> events = act(() -> guest.bind(Guest.EDU, "vfio-pci"),
                List.of("event bind pci /devices/pci0000:00/0000:00:02.0/" + Guest.EDU));

        assertThat(events).anyMatch(l -> l.startsWith("event add vfio /devices/virtual/vfio/" + group + " functions=[] mdevs=[]"));
        assertThat(events).anyMatch(l -> l.startsWith("event add vfio-dev /devices/pci0000:00/0000:00:02.0/" + Guest.EDU + "/vfio-dev/vfio")
                && l.contains("functions=[" + Guest.EDU + "]"));
        assertThat(line(events, "event bind pci")).contains("functions=[" + Guest.EDU + "]").containsPattern("vfio=\\[[^]]*\\b" + group + "\\b");
        assertThat(order(events, "event add vfio ", "event bind pci")).as("group node before the bind: %s", events).isTrue();
    }

    @Test
    void anUnbindRemovesTheGroupNodeBeforeTheUnbindEvent() throws Exception {
        act(() -> guest.bind(Guest.BOCHS, "vfio-pci"), List.of("event bind pci /devices/pci0000:00/0000:00:02.1/" + Guest.BOCHS));
        String group = GuestHosts.sysfs(guest).get(Guest.BOCHS).group();

        List<String> events = act(() -> guest.unbind(Guest.BOCHS),
                List.of("event unbind pci /devices/pci0000:00/0000:00:02.1/" + Guest.BOCHS));

        assertThat(events).anyMatch(l -> l.startsWith("event remove vfio /devices/virtual/vfio/" + group + " "));
        assertThat(line(events, "event unbind pci")).contains("functions=[" + Guest.BOCHS + "]").doesNotContainPattern("vfio=\\[[^]]*\\b" + group + "\\b");
        assertThat(order(events, "event remove vfio ", "event unbind pci")).isTrue();
    }

    @Test
    void aDriverSwitchIsAnUnbindOfTheOldDriverThenABind() throws Exception {
        act(() -> guest.bind(Guest.RNG, "virtio-pci"), List.of("event bind pci /devices/pci0000:00/0000:00:02.3/" + Guest.RNG));

        List<String> events = act(() -> guest.bind(Guest.RNG, "vfio-pci"), List.of(
                "event unbind pci /devices/pci0000:00/0000:00:02.3/" + Guest.RNG, "event bind pci /devices/pci0000:00/0000:00:02.3/" + Guest.RNG));

        assertThat(events).anyMatch(l -> l.startsWith("event unbind virtio /devices/pci0000:00/0000:00:02.3/" + Guest.RNG + "/virtio")
                && l.endsWith(" ignored"));
        assertThat(order(events, "event unbind pci", "event bind pci")).isTrue();
        assertThat(line(events, "event bind pci")).contains("functions=[" + Guest.RNG + "]");
    }

    @Test
    void aHotAddAndAHotRemoveThroughQmpAreAddAndRemoveEvents() throws Exception {
        String port = "rp5";
        String address = Guest.HOTPLUG_PORTS.get(port);

        List<String> added = act(() -> guest.qmp().execute("device_add", Map.of("driver", "edu", "id", "hotplugged", "bus", port)),
                List.of("event add pci /devices/pci0000:00/0000:00:02.4/" + address));
        act(() -> guest.bind(address, "vfio-pci"), List.of("event bind pci /devices/pci0000:00/0000:00:02.4/" + address));
        List<String> removed = act(() -> {
            guest.qmp().execute("device_del", Map.of("id", "hotplugged"));
            guest.qmp().awaitEvent("DEVICE_DELETED", d -> d.path("device").asString().equals("hotplugged"), guest.paced(EVENTS));
        }, List.of("event remove pci /devices/pci0000:00/0000:00:02.4/" + address));

        assertThat(line(added, "event add pci")).contains("functions=[" + address + "]");
        assertThat(removed).anyMatch(l -> l.startsWith("event remove vfio /devices/virtual/vfio/"));
        assertThat(order(removed, "event unbind pci /devices/pci0000:00/0000:00:02.4/" + address, "event remove pci")).isTrue();
        assertThat(line(removed, "event remove pci")).contains("functions=[" + address + "]");
        assertThat(GuestHosts.sysfs(guest)).doesNotContainKey(address);
    }

    @Test
    void aNetworkNamespaceOfThePodStillReceivesUevents() throws Exception {
        String log = "/tmp/uevents-netns.log";
        guest.ok("unshare -n " + guest.java("io.vfiodp.kernel.guest.UeventRecorder") + " > " + log + " 2>&1 &");
        awaitLines(log, 0, List.of("open: opened"));
        guest.unbind(Guest.EDU_BEHIND_BRIDGE_1);
        guest.bind(Guest.EDU_BEHIND_BRIDGE_1, "vfio-pci");

        awaitLines(log, 0, List.of("event bind pci /devices/pci0000:00/0000:00:02.2/" + Guest.BRIDGE + "/" + Guest.EDU_BEHIND_BRIDGE_1));
    }

    @Test
    void aUserNamespacesNetworkNamespaceGetsNoUeventsAndTheSocketSaysSo() throws Exception {
        String out = guest.ok("unshare -r -n " + guest.java("io.vfiodp.kernel.guest.UeventRecorder") + " 2>&1");

        assertThat(out).contains("open: unavailable: this process runs in a user namespace (uid_map '0 0 1') that owns its network"
                + " namespace; the kernel sends uevents only to network namespaces of the initial user namespace"
                + " (run the pod with hostUsers: true)");
    }

    /** Something that changes the guest's devices. */
    private interface Action {
        void run() throws Exception;
    }

    /**
     * Does {@code action} and returns the recorder's lines from then on, once every line of
     * {@code expected} arrived and the kernel went quiet after the last of them; fails unless the
     * incremental rescans then equal a full scan ({@code quiet rescan=same}).
     */
    private List<String> act(Action action, List<String> expected) throws Exception {
        int from = lines(LOG).size();
        action.run();
        List<String> after = awaitLines(LOG, from, expected);
        assertThat(after).as("rescans against full scans").noneMatch(l -> l.contains("DIFFERENT"));
        if (!expected.isEmpty()) {
            assertThat(after.get(after.size() - 1)).as("the recorder's check once the kernel went quiet").isEqualTo("quiet rescan=same");
        }
        return after;
    }

    /**
     * The log's lines from index {@code from} on, once each of {@code expected} starts one of them
     * and, when {@code expected} names any, a {@code quiet} line follows the last of them.
     */
    private List<String> awaitLines(String log, int from, List<String> expected) {
        List<List<String>> seen = new ArrayList<>();
        Awaitility.await("lines " + expected + " in " + log).atMost(guest.paced(EVENTS)).pollInterval(Duration.ofMillis(200)).until(() -> {
            List<String> all = lines(log);
            List<String> after = all.subList(Math.min(from, all.size()), all.size());
            seen.add(after);
            int last = -1;
            for (String e : expected) {
                int at = -1;
                for (int i = 0; i < after.size(); i++) {
                    if (after.get(i).startsWith(e)) at = i;
                }
                if (at < 0) return false;
                last = Math.max(last, at);
            }
            return expected.isEmpty() || expected.equals(List.of("open: opened"))
                    || (after.get(after.size() - 1).startsWith("quiet") && after.size() - 1 > last);
        });
        return seen.get(seen.size() - 1);
    }

    private List<String> lines(String log) throws Exception {
        String out = guest.ok("cat " + log + " 2>/dev/null || true");
        return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
    }

    private static String line(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(() -> new AssertionError("no " + prefix + " in " + lines));
    }

    /** Whether the first line starting with {@code first} comes before the first starting with {@code second}. */
    private static boolean order(List<String> lines, String first, String second) {
        int a = -1;
        int b = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (a < 0 && lines.get(i).startsWith(first)) a = i;
            if (b < 0 && lines.get(i).startsWith(second)) b = i;
        }
        return a >= 0 && b >= 0 && a < b;
    }
}
