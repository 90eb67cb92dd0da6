package io.vfiodp.kernel.guest;

import io.vfiodp.host.uevent.Uevent;
import io.vfiodp.host.uevent.UeventReceipt;
import io.vfiodp.host.uevent.UeventSocket;
import io.vfiodp.host.uevent.UeventSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * Runs inside the real-kernel tests' guest: binds one PCI function to vfio-pci and unbinds it
 * again, {@code cycles} times, and times, from the start of the {@code drivers_probe} write: the
 * write's return, the arrival of the group node's {@code add vfio} uevent and of the
 * {@code bind pci} uevent, and whether {@code /dev/vfio/N} existed when {@code add vfio} arrived.
 * Prints the figures (median, max, in ms).
 *
 * <p>Usage: {@code BindLatency ADDRESS GROUP CYCLES}; the function must be unbound.
 */
public final class BindLatency {

    public static void main(String[] args) throws IOException {
        String address = args[0];
        String group = args[1];
        int cycles = Integer.parseInt(args[2]);
        Path dev = Path.of("/sys/bus/pci/devices", address);
        Path node = Path.of("/dev/vfio", group);
        long[] written = new long[cycles];
        long[] groupEvent = new long[cycles];
        long[] bindEvent = new long[cycles];
        int nodeThere = 0;
        try (UeventSource socket = ((UeventSocket.Opening.Opened) UeventSocket.open()).socket()) {
            Files.writeString(dev.resolve("driver_override"), "vfio-pci");
            for (int i = 0; i < cycles; i++) {
                long start = System.nanoTime();
                Files.writeString(Path.of("/sys/bus/pci/drivers_probe"), address);
                written[i] = System.nanoTime() - start;
                boolean bound = false;
                while (!bound) {
                    UeventReceipt r = socket.receive(Pace.fromProperty().scale(Duration.ofSeconds(10)));
                    if (!(r instanceof UeventReceipt.Event e)) throw new IllegalStateException("no bind event for " + address + ": " + r);
                    Uevent u = e.event();
                    long at = System.nanoTime() - start;
                    if (u.subsystem().equals("vfio") && u.action().equals("add") && u.devpath().endsWith("/" + group)) {
                        groupEvent[i] = at;
                        if (Files.exists(node)) nodeThere++;
                    } else if (u.subsystem().equals("pci") && u.action().equals("bind") && u.devpath().endsWith("/" + address)) {
                        bindEvent[i] = at;
                        bound = true;
                    }
                }
                Files.writeString(dev.resolve("driver/unbind"), address);
                while (socket.receive(Duration.ofMillis(200)) instanceof UeventReceipt.Event) {
                    // the unbind's events
                }
            }
            Files.writeString(dev.resolve("driver_override"), "\n");
        }
        System.out.printf(Locale.ROOT, "bind of %s to vfio-pci, %d cycles (ms from the start of the drivers_probe write, median / max):%n",
                address, cycles);
        System.out.printf(Locale.ROOT, "  write returned:          %s%n", figures(written));
        System.out.printf(Locale.ROOT, "  'add vfio' (group node): %s; /dev/vfio/%s already there in %d of %d%n",
                figures(groupEvent), group, nodeThere, cycles);
        System.out.printf(Locale.ROOT, "  'bind pci':              %s%n", figures(bindEvent));
    }

    private static String figures(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return String.format(Locale.ROOT, "%.2f / %.2f", s[s.length / 2] / 1e6, s[s.length - 1] / 1e6);
    }
}
