package io.vfiodp.kernel.guest;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.scan.HostScan;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.host.uevent.Uevent;
import io.vfiodp.host.uevent.UeventReceipt;
import io.vfiodp.host.uevent.UeventSocket;
import io.vfiodp.host.uevent.UeventSource;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs inside the real-kernel tests' guest: opens the uevent socket and prints one line per
 * message until killed. For an event that names devices it reads them again with
 * {@link SysfsScanner#rescan} on the real {@code /sys} and {@code /dev}, as serve's loop would;
 * when the kernel has been quiet for {@value #QUIET_MILLIS} ms after such events it checks the
 * incremental result against a full scan. (Between the events of one bind the check cannot hold:
 * a rescan for the group node's event already reads the driver link the bind's own event names
 * later.)
 *
 * <pre>
 *   open: opened | open: unavailable: REASON
 *   event ACTION SUBSYSTEM DEVPATH functions=[...] mdevs=[...] vfio=[N...]   (groups with a /dev/vfio node after its rescan)
 *   event ACTION SUBSYSTEM DEVPATH ignored
 *   quiet rescan=same | quiet rescan=DIFFERENT: INCREMENTAL vs FULL
 *   dropped REASON | overflow
 * </pre>
 */
public final class UeventRecorder {

    static final int QUIET_MILLIS = 300;

    public static void main(String[] args) {
        UeventSocket.Opening opening = UeventSocket.open();
        if (opening instanceof UeventSocket.Opening.Unavailable u) {
            print("open: unavailable: " + u.reason());
            return;
        }
        SysfsScanner scanner = new SysfsScanner(Path.of("/sys"), Path.of("/dev"));
        HostScan scan = scanner.fullScan();
        try (UeventSource socket = ((UeventSocket.Opening.Opened) opening).socket()) {
            print("open: opened");
            boolean rescanned = false;
            while (true) {
                switch (rescanned ? socket.receive(Duration.ofMillis(QUIET_MILLIS)) : socket.receive()) {
                    case UeventReceipt.Event e -> {
                        HostScan next = record(e.event(), scanner, scan);
                        rescanned |= next != scan;
                        scan = next;
                    }
                    case UeventReceipt.Idle i -> {
                        HostScan full = scanner.fullScan();
                        print("quiet rescan=" + (scan.snapshot().equals(full.snapshot()) ? "same"
                                : "DIFFERENT: " + scan.snapshot() + " vs " + full.snapshot()));
                        rescanned = false;
                    }
                    case UeventReceipt.Dropped d -> print("dropped " + d.reason());
                    case UeventReceipt.Overflow o -> {
                        print("overflow");
                        scan = scanner.fullScan();
                    }
                    case UeventReceipt.Woken w -> {
                        return;
                    }
                }
            }
        }
    }

    /** The scan after the event: the previous one when the event names nothing the scan reads. */
    private static HostScan record(Uevent e, SysfsScanner scanner, HostScan scan) {
        String head = "event " + e.action() + " " + e.subsystem() + " " + e.devpath();
        if (e.changes().isEmpty()) {
            print(head + " ignored");
            return scan;
        }
        ChangedDevices changed = e.changes().get();
        HostScan next = scanner.rescan(scan, changed);
        print(head + " functions=" + changed.functions() + " mdevs=" + changed.mdevs() + " vfio=" + next.snapshot().devNodes().groupNodes());
        return next;
    }

    private static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
