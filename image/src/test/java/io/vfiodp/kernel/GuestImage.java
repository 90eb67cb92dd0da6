package io.vfiodp.kernel;

import io.vfiodp.checkout.Checkout;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * What the real-kernel tests boot: Debian's cloud kernel and an initramfs holding busybox, the
 * VFIO modules, the image's Java runtime and jar at the same absolute path as on this machine (so
 * that its class archive maps), and the test classes (the guest-side programs). Made once per test
 * JVM by {@link KernelTestBed}.
 *
 * <p>The kernel and busybox-static are Debian packages fetched with {@code apt-get download} and
 * unpacked with {@code dpkg-deb -x} into a cache ({@code $VFIO_DP_TOOLS} or
 * {@code ~/.cache/vfio-device-plugin}, subdirectory {@code kernel}), never installed; see
 * {@code image/src/test/kernel/fetch.sh}. A missing QEMU, kernel or package list is a failure that says
 * what to install, never a skip.
 *
 * @param vmlinuz       the kernel to boot
 * @param initramfs     the guest's root file system
 * @param kernelPackage the Debian package and version the kernel came from
 * @param imageDir      the plugin directory inside the guest (its launcher, runtime and jar)
 * @param modules       the modules the guest loads, in load order
 */
record GuestImage(Path vmlinuz, Path initramfs, String kernelPackage, Path imageDir, List<String> modules) {

    static final String QEMU = "qemu-system-x86_64";

    /** Fetches (or finds in the cache) the packages and builds the initramfs into {@code work}. */
    static GuestImage build(Path work) throws IOException, InterruptedException {
        // module image's, also when a benchmark (RealKernelLatencyBench, module bench) builds it
        Path scripts = Checkout.path("image/src/test/kernel");
        Path image = Path.of(System.getProperty("vfiodp.image", Checkout.path("image/target/image").toString())).toAbsolutePath();
        Path classes = Checkout.path("image/target/test-classes");
        Path testkit = Path.of(System.getProperty("vfiodp.testkit", jarOf(KubeletSimulator.class).toString())).toAbsolutePath();
        if (!Files.isExecutable(image.resolve("runtime/bin/java"))) {
            throw new IllegalStateException("real-kernel tests: no plugin image at " + image
                    + " (the Maven profile 'image' builds it in the package phase: run them with ./mvnw verify)");
        }
        if (!Files.isRegularFile(testkit)) {
            throw new IllegalStateException("real-kernel tests: no test kit jar at " + testkit
                    + " (./mvnw package copies it to image/target/demo-lib: run them with ./mvnw verify)");
        }
        qemu();
        Files.createDirectories(work);
        Path cache = Path.of(Optional.ofNullable(System.getenv("VFIO_DP_TOOLS"))
                .orElse(System.getProperty("user.home") + "/.cache/vfio-device-plugin")).resolve("kernel");
        String fetched = run(work.resolve("fetch.log"), "sh", scripts.resolve("fetch.sh").toString(), cache.toString());
        Path kernel = Path.of(line(fetched, "kernel="));
        Path busybox = Path.of(line(fetched, "busybox="));
        Path vmlinuz;
        try (var boot = Files.list(kernel.resolve("boot"))) {
            vmlinuz = boot.filter(p -> p.getFileName().toString().startsWith("vmlinuz-")).findFirst()
                    .orElseThrow(() -> new IOException("no boot/vmlinuz-* in " + kernel));
        }
        Path initramfs = work.resolve("initramfs.cpio");
        run(work.resolve("initramfs.log"), "sh", scripts.resolve("build-initramfs.sh").toString(), kernel.toString(),
                busybox.toString(), image.toString(), classes.toString(), testkit.toString(), initramfs.toString());
        String complete = Files.readString(kernel.resolve(".complete"), StandardCharsets.UTF_8).strip();
        List<String> modules = Files.readAllLines(work.resolve("initramfs.log")).stream()
                .filter(l -> l.startsWith("initramfs: modules in load order:"))
                .flatMap(l -> List.of(l.substring("initramfs: modules in load order:".length()).trim().split("\\s+")).stream())
                .toList();
        return new GuestImage(vmlinuz, initramfs, complete, image, modules);
    }

    /** The jar or directory {@code type} was loaded from. */
    private static Path jarOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("where " + type.getName() + " was loaded from: " + e.getMessage(), e);
        }
    }

    /** Fails with what to install when QEMU is missing. */
    private static void qemu() throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(QEMU, "--version").redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException("real-kernel tests: " + QEMU + " not found; install Debian's qemu-system-x86"
                    + " (apt-get install --no-install-recommends qemu-system-x86; .ci/run does)", e);
        }
        p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("real-kernel tests: " + QEMU + " --version failed");
        }
    }

    /** Runs a script of src/test/kernel; its stdout, its stderr in {@code log}; fails with the log's tail. */
    private static String run(Path log, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(15, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            List<String> lines = Files.readAllLines(log);
            throw new IllegalStateException("real-kernel tests: " + String.join(" ", command) + " failed:\n  "
                    + String.join("\n  ", lines.subList(Math.max(0, lines.size() - 15), lines.size())));
        }
        return out;
    }

    private static String line(String output, String prefix) {
        return output.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).findFirst()
                .orElseThrow(() -> new IllegalStateException("fetch.sh printed no " + prefix + " line: " + output));
    }
}
