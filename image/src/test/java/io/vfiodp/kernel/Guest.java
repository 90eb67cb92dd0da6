package io.vfiodp.kernel;

import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.kernel.guest.Pace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One QEMU guest of the real-kernel tests, booted from a {@link GuestImage}: q35 with an emulated
 * Intel IOMMU (interrupt remapping on; TCG, so no kernel irqchip to split), the kernel booted with
 * {@code intel_iommu=on}, and these PCI devices:
 *
 * <pre>
 *   0000:00:01.0  std VGA (1234:1111, class 0300), the boot VGA device, on the root complex
 *   0000:00:02.0  root port rp1 -> 0000:01:00.0  edu (1234:11e8), IOMMU group of its own
 *   0000:00:02.1  root port rp2 -> 0000:02:00.0  bochs-display (1234:1111, class 0380, no boot_vga)
 *   0000:00:02.2  root port rp3 -> 0000:03:00.0  pcie-pci-bridge, and behind it, all in ONE group:
 *                                  0000:04:01.0 edu, 0000:04:02.0 edu, 0000:04:03.0 virtio-rng (1af4:1005)
 *   0000:00:02.3  root port rp4 -> 0000:05:00.0  virtio-rng (1af4:1044, on virtio-pci at boot)
 *   0000:00:02.4  root port rp5, empty: hot-plug (bus 06)
 *   0000:00:02.5  root port rp6, empty: hot-plug (bus 07)
 * </pre>
 *
 * The kernel has no driver for edu or the displays (no DRM in the cloud kernel), so they boot
 * unbound; the virtio devices bind to virtio-pci. ttyS0 is the kernel console (written to
 * {@code console.log}), ttyS1 the command channel ({@link GuestShell}), and QMP drives hot-plug.
 */
final class Guest implements AutoCloseable {

    static final String EDU = "0000:01:00.0";
    static final String BOCHS = "0000:02:00.0";
    static final String VGA = "0000:00:01.0";
    static final String BRIDGE = "0000:03:00.0";
    static final String EDU_BEHIND_BRIDGE_1 = "0000:04:01.0";
    static final String EDU_BEHIND_BRIDGE_2 = "0000:04:02.0";
    static final String RNG_BEHIND_BRIDGE = "0000:04:03.0";
    static final String RNG = "0000:05:00.0";
    /** The root ports left empty for hot-plug, and where a device plugged into them appears. */
    static final Map<String, String> HOTPLUG_PORTS = Map.of("rp5", "0000:06:00.0", "rp6", "0000:07:00.0");

    /**
     * Until the command channel: fixed, since the boot is what measures the pace. About forty
     * quiet boots (Pace.QUIET_BOOT), which a machine at a load of 13 on two cores stays well within.
     */
    private static final Duration BOOT = Duration.ofMinutes(3);
    private static final Duration SOCKETS = Duration.ofSeconds(30);
    /** One command on the channel on a quiet machine (a JVM's start and work in the guest among them); paced. */
    private static final Duration COMMAND = Duration.ofMinutes(4);

    private final GuestImage image;
    private final Path dir;
    private final Process qemu;
    private final GuestShell shell;
    private final Qmp qmp;
    private final Duration bootTime;
    private final Pace pace;

    private Guest(GuestImage image, Path dir, Process qemu, GuestShell shell, Qmp qmp, Duration bootTime) {
        this.image = image;
        this.dir = dir;
        this.qemu = qemu;
        this.shell = shell;
        this.qmp = qmp;
        this.bootTime = bootTime;
        this.pace = Pace.ofBoot(bootTime);
        qmp.answerWithin(pace.scale(Qmp.ANSWER));
        System.out.printf("real kernel: the guest booted in %.1f s: %s pace%n", bootTime.toMillis() / 1e3, pace);
    }

    static Guest boot(GuestImage image) throws IOException, InterruptedException {
        return boot(image, "intel_iommu=on");
    }

    /**
     * As {@link #boot(GuestImage)}, the kernel told {@code iommu} about the IOMMU instead of
     * {@code intel_iommu=on} ({@code intel_iommu=off}: VT-d is there, as its ACPI DMAR table says, but off).
     */
    static Guest boot(GuestImage image, String iommu) throws IOException, InterruptedException {
        // socket paths must stay under 107 bytes, so the guest's files live in /tmp, not target/
        Path dir = Files.createTempDirectory("vfiodp-guest-");
        List<String> command = new ArrayList<>(List.of(GuestImage.QEMU,
                "-machine", "q35", "-accel", "tcg", "-cpu", "max", "-smp", "2", "-m", "2048",
                "-nodefaults", "-display", "none", "-no-reboot",
                // before any device that does DMA
                "-device", "intel-iommu,intremap=on",
                "-kernel", image.vmlinuz().toString(), "-initrd", image.initramfs().toString(),
                // no_timer_check: the kernel's early test that the timer interrupt arrives within a busy-wait loop fails under
                // TCG on a loaded machine ("timer doesn't work through Interrupt-remapped IO-APIC", a panic), as in any VM
                "-append", "console=ttyS0 " + iommu + " panic=-1 quiet no_timer_check",
                "-chardev", "file,id=console,path=" + dir.resolve("console.log"), "-serial", "chardev:console",
                "-chardev", "socket,id=command,path=" + dir.resolve("command.sock") + ",server=on,wait=on", "-serial", "chardev:command",
                "-chardev", "socket,id=qmp,path=" + dir.resolve("qmp.sock") + ",server=on,wait=off", "-mon", "chardev=qmp,mode=control",
                "-device", "VGA",
                "-device", "pcie-root-port,id=rp1,chassis=1,bus=pcie.0,addr=0x2.0,multifunction=on", "-device", "edu,bus=rp1",
                "-device", "pcie-root-port,id=rp2,chassis=2,bus=pcie.0,addr=0x2.1", "-device", "bochs-display,bus=rp2",
                "-device", "pcie-root-port,id=rp3,chassis=3,bus=pcie.0,addr=0x2.2", "-device", "pcie-pci-bridge,id=br1,bus=rp3",
                "-device", "edu,bus=br1,addr=1", "-device", "edu,bus=br1,addr=2", "-device", "virtio-rng-pci,bus=br1,addr=3",
                "-device", "pcie-root-port,id=rp4,chassis=4,bus=pcie.0,addr=0x2.3", "-device", "virtio-rng-pci,bus=rp4",
                "-device", "pcie-root-port,id=rp5,chassis=5,bus=pcie.0,addr=0x2.4",
                "-device", "pcie-root-port,id=rp6,chassis=6,bus=pcie.0,addr=0x2.5"));
        long start = System.nanoTime();
        Process qemu = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("qemu.log").toFile()).start();
        GuestShell shell = null;
        Qmp qmp = null;
        try {
            // QEMU waits for this connection (wait=on) before it starts the guest; it makes both sockets before it
            // emulates anything, so TCG's pace does not apply and half a minute is ample
            shell = new GuestShell(LineChannel.connect("command", dir.resolve("command.sock"), SOCKETS, qemu));
            qmp = Qmp.start(LineChannel.connect("qmp", dir.resolve("qmp.sock"), SOCKETS, qemu));
            shell.awaitReady(BOOT);
            return new Guest(image, dir, qemu, shell, qmp, Duration.ofNanos(System.nanoTime() - start));
        } catch (IOException | RuntimeException e) {
            String why = e.getMessage() + "\nQEMU: " + tail(dir.resolve("qemu.log")) + "\nconsole: " + tail(dir.resolve("console.log"));
            if (shell != null) shell.close();
            if (qmp != null) qmp.close();
            qemu.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            Trees.deleteRecursively(dir);
            throw new IOException("the guest did not boot: " + why, e);
        }
    }

    GuestImage image() {
        return image;
    }

    /** From QEMU's start until init announced the command channel. */
    Duration bootTime() {
        return bootTime;
    }

    /** {@code quiet}, a wait's bound on a quiet machine, at this guest's pace (see {@link Pace}). */
    Duration paced(Duration quiet) {
        return pace.scale(quiet);
    }

    Qmp qmp() {
        return qmp;
    }

    GuestShell.Result run(String script) throws IOException, InterruptedException {
        return shell.run(script, pace.scale(COMMAND));
    }

    /** Runs {@code script}; its output, or an AssertionError with the output and the console's end when it fails. */
    String ok(String script) throws IOException, InterruptedException {
        GuestShell.Result r = run(script);
        if (r.status() != 0) {
            throw new AssertionError("guest command failed with status " + r.status() + ":\n" + script + "\n--- output:\n" + r.output()
                    + "\n--- console:\n" + tail(dir.resolve("console.log")));
        }
        return r.output();
    }

    /**
     * The shell command line of the image's Java runtime with the jar, the test classes and the test kit, for guest-side programs;
     * they get this guest's pace, for their own waits.
     */
    String java(String mainClass, String... args) {
        Path i = image.imageDir();
        StringBuilder b = new StringBuilder();
        b.append(i.resolve("runtime/bin/java")).append(" -Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:off --enable-native-access=ALL-UNNAMED")
                .append(' ').append(pace.jvmOption())
                .append(" -Djava.library.path=").append(i.resolve("lib/native"))
                .append(" -Djna.boot.library.path=").append(i.resolve("lib/native"))
                .append(" -cp ").append(i.resolve("lib/vfio-device-plugin.jar")).append(":/opt/test-classes:/opt/kubelet-testkit.jar ")
                .append(mainClass);
        for (String a : args) b.append(' ').append(a);
        return b.toString();
    }

    /** The shell command line of the image's launcher, as the container runs it. */
    String plugin(String... args) {
        return image.imageDir().resolve("bin/vfio-device-plugin") + " " + String.join(" ", args);
    }

    /** Binds {@code address} to {@code driver} the way an operator does: driver_override, unbind, drivers_probe. */
    void bind(String address, String driver) throws IOException, InterruptedException {
        ok(bindScript(address, driver));
    }

    static String bindScript(String address, String driver) {
        String d = "/sys/bus/pci/devices/" + address;
        return "echo " + driver + " > " + d + "/driver_override\n"
                + "if [ -e " + d + "/driver ]; then echo " + address + " > " + d + "/driver/unbind; fi\n"
                + "echo " + address + " > /sys/bus/pci/drivers_probe\n"
                + "[ \"$(basename \"$(readlink " + d + "/driver)\")\" = " + driver + " ] || { echo \"" + address
                + " is not on " + driver + "\"; exit 1; }\n";
    }

    /** Unbinds {@code address} and clears its driver_override, so nothing binds it again by itself. */
    void unbind(String address) throws IOException, InterruptedException {
        String d = "/sys/bus/pci/devices/" + address;
        ok("echo > " + d + "/driver_override\nif [ -e " + d + "/driver ]; then echo " + address + " > " + d + "/driver/unbind; fi\n");
    }

    /** The functions without a driver at boot, and those on virtio-pci: the whole of the boot state the tests change. */
    private static final List<String> UNBOUND_AT_BOOT = List.of(EDU, BOCHS, VGA, EDU_BEHIND_BRIDGE_1, EDU_BEHIND_BRIDGE_2);
    private static final List<String> VIRTIO_AT_BOOT = List.of(RNG, RNG_BEHIND_BRIDGE);

    /**
     * Puts the guest back as it booted, for the next test class that shares it ({@link KernelTestBed}):
     * every process the tests started killed (the guest runs nothing else but init's command loop),
     * what they wrote removed (serve's state, sockets and CDI specs, the recorders' logs, the
     * configuration), each function back on its boot driver with no driver_override, and no vfio-pci
     * new_id. Returns whether the guest is as it booted: false when a hot-plugged device is still
     * there (a class that failed before its hot-remove), and then the guest is not to be used again.
     */
    boolean resetToBoot() throws IOException, InterruptedException {
        StringBuilder script = new StringBuilder("""
                for p in $(pidof java); do kill -9 $p; done
                n=0
                while pidof java >/dev/null; do n=$((n+1)); [ $n -lt 600 ] || { echo "java still running"; exit 0; }; sleep 0.1; done
                rm -rf /run/dp /run/kubelet /var/lib/vfio-device-plugin /var/run/cdi /tmp/*.log /tmp/*.err /tmp/*.yaml
                echo 1234 11e8 > /sys/bus/pci/drivers/vfio-pci/remove_id 2>/dev/null
                """);
        for (String a : UNBOUND_AT_BOOT) {
            String d = "/sys/bus/pci/devices/" + a;
            script.append("echo > ").append(d).append("/driver_override\nif [ -e ").append(d).append("/driver ]; then echo ").append(a)
                    .append(" > ").append(d).append("/driver/unbind; fi\n");
        }
        for (String a : VIRTIO_AT_BOOT) {
            String d = "/sys/bus/pci/devices/" + a;
            script.append("if [ \"$(basename \"$(readlink ").append(d).append("/driver)\")\" != virtio-pci ]; then\n")
                    .append(bindScript(a, "virtio-pci")).append("fi\necho > ").append(d).append("/driver_override\n");
        }
        for (String a : HOTPLUG_PORTS.values()) {
            script.append("if [ -e /sys/bus/pci/devices/").append(a).append(" ]; then echo \"hot-plugged ").append(a).append(" still there\"; fi\n");
        }
        GuestShell.Result r = run(script.toString());
        boolean clean = r.status() == 0 && r.output().isBlank();
        if (!clean) System.out.println("real kernel: the shared guest is not as it booted (" + r.status() + ": " + r.output().strip() + "); booting another");
        return clean;
    }

    String console() throws IOException {
        return Files.readString(dir.resolve("console.log"));
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no " + file.getFileName() + ")";
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            if (qemu.isAlive()) qmp.execute("quit", Map.of());
        } catch (IOException e) {
            // QEMU closes the socket as it quits
        }
        if (!qemu.waitFor(20, TimeUnit.SECONDS)) qemu.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        shell.close();
        qmp.close();
        Trees.deleteRecursively(dir);
    }
}
