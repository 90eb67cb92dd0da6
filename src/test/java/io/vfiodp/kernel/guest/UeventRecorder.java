package io.vfiodp.kernel.guest;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.HostScan;
import io.vfiodp.host.SysfsScanner;
import io.vfiodp.host.Uevent;
import io.vfiodp.host.UeventReceipt;
import io.vfiodp.host.UeventSocket;
import java.nio.file.Path;

/**
 * Runs inside the real-kernel tests' guest: opens the uevent socket and prints one line per
 * message until killed. For an event that names devices it also reads them again with
 * {@link SysfsScanner#rescan} on the real {@code /sys} and {@code /dev} and checks the result
 * against a full scan:
 *
 * <pre>
 *   open: opened | open: unavailable: REASON
 *   event ACTION SUBSYSTEM DEVPATH functions=[...] mdevs=[...] vfio=[N...] rescan=same|DIFFERENT: ...
 *   event ACTION SUBSYSTEM DEVPATH ignored
 *   dropped REASON | overflow
 * </pre>
 */
public final class UeventRecorder {

    public static void main(String[] args) {
        UeventSocket.Opening opening = UeventSocket.open();
        if (opening instanceof UeventSocket.Opening.Unavailable u) {
            print("open: unavailable: " + u.reason());
            return;
        }
        SysfsScanner scanner = new SysfsScanner(Path.of("/sys"), Path.of("/dev"));
        HostScan scan = scanner.fullScan();
        try (UeventSocket socket = ((UeventSocket.Opening.Opened) opening).socket()) {
            print("open: opened");
            while (true) {
                switch (socket.receive()) {
                    case UeventReceipt.Event e -> scan = record(e.event(), scanner, scan);
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

    private static HostScan record(Uevent e, SysfsScanner scanner, HostScan scan) {
        String head = "event " + e.action() + " " + e.subsystem() + " " + e.devpath();
        if (e.changes().isEmpty()) {
            print(head + " ignored");
            return scan;
        }
        ChangedDevices changed = e.changes().get();
        HostScan next = scanner.rescan(scan, changed);
        HostScan full = scanner.fullScan();
        boolean same = next.snapshot().equals(full.snapshot());
        print(head + " functions=" + changed.functions() + " mdevs=" + changed.mdevs() + " vfio=" + next.snapshot().devNodes().groupNodes()
                + " rescan=" + (same ? "same" : "DIFFERENT: " + next.snapshot() + " vs " + full.snapshot()));
        return next;
    }

    private static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
