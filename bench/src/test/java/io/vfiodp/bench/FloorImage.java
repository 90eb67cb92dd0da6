package io.vfiodp.bench;

import io.vfiodp.bench.PluginRun.Expectation;
import io.vfiodp.bench.floor.FloorPlugin;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Makes ServeBench's floor ({@link FloorPlugin}) ready to run beside an image of ours: its jar (the
 * floor's classes and, taken from our jar, grpc-java, protobuf and the device-plugin API's stubs:
 * the same dependencies at the same versions) and, when our image starts from an AOT cache, an AOT
 * cache of its own, made as ours is (a training run on the image's runtime with the shipped flags,
 * without method profiles, written as it exits on SIGTERM).
 */
final class FloorImage {

    static final String RESOURCE = "nvidia.com/TU104GL_TESLA_T4";
    static final String VENDOR_DEVICE = "10de:1eb8";
    /** What the floor needs of our jar; the agent's own classes and the other libraries stay out. */
    static final List<String> DEPENDENCIES = List.of("io/grpc/", "com/google/", "io/perfmark/", "io/vfiodp/proto/deviceplugin/",
            "META-INF/services/io.grpc.");
    private static final int TRAINING_CALLS = 2_000;
    private static final Duration TRAINING_EXIT = Duration.ofMinutes(3);

    private FloorImage() {}

    /** The floor for {@code image}, its files under {@code work}; the training run (if any) serves {@code fixture}. */
    static Contender.Floor prepare(Path image, Path fixture, Path work) throws IOException, InterruptedException {
        Path jar = work.resolve("floor.jar");
        writeJar(image.resolve("lib/vfio-device-plugin.jar"), jar);
        Contender.Floor plain = new Contender.Floor(image, jar, List.of(), RESOURCE, VENDOR_DEVICE);
        if (!Files.isRegularFile(image.resolve("lib/vfio-device-plugin.jsa")) || javaFeature(image) < 25) {
            System.out.println("floor: " + jar + "; no AOT cache (our image has none)");
            return plain;
        }
        Path cache = work.resolve("floor.aot");
        Contender.Floor training = new Contender.Floor(image, jar, List.of("-XX:AOTCacheOutput=" + cache, "-XX:-AOTRecordTraining"),
                RESOURCE, VENDOR_DEVICE);
        Path log = work.resolve("floor-training.log");
        try (PluginRun run = PluginRun.start(training, fixture, Optional.of(log))) {
            run.awaitRegistered(new Expectation(new java.util.TreeMap<>(Map.of(RESOURCE, 0))));
            run.allocate(RESOURCE, TRAINING_CALLS, PluginRun.EARLY);
            run.terminate(TRAINING_EXIT);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException("the floor's training run did not register: see " + log, e);
        }
        if (!Files.isRegularFile(cache)) throw new IOException("the floor's training run wrote no AOT cache " + cache + ": see " + log);
        System.out.println("floor: " + jar + "; AOT cache " + cache + " (" + Files.size(cache) / (1024 * 1024) + " MiB)");
        return new Contender.Floor(image, jar, List.of("-XX:SharedArchiveFile=" + cache), RESOURCE, VENDOR_DEVICE);
    }

    /** The floor's classes, and of {@code agentJar} the entries under {@link #DEPENDENCIES}. */
    static void writeJar(Path agentJar, Path out) throws IOException {
        Path classes = floorClasses();
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(out)); JarFile agent = new JarFile(agentJar.toFile())) {
            try (Stream<Path> files = Files.list(classes)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
                    copy(jar, floorPackage() + f.getFileName(), Files.newInputStream(f));
                }
            }
            for (JarEntry e : agent.stream().filter(e -> !e.isDirectory() && DEPENDENCIES.stream().anyMatch(e.getName()::startsWith)).toList()) {
                copy(jar, e.getName(), agent.getInputStream(e));
            }
        }
    }

    private static void copy(JarOutputStream jar, String name, InputStream in) throws IOException {
        try (in) {
            jar.putNextEntry(new JarEntry(name));
            in.transferTo(jar);
            jar.closeEntry();
        }
    }

    private static String floorPackage() {
        return FloorPlugin.class.getPackageName().replace('.', '/') + "/";
    }

    /** The directory the floor's class files were loaded from (the test classes). */
    private static Path floorClasses() throws IOException {
        try {
            return Path.of(FloorPlugin.class.getProtectionDomain().getCodeSource().getLocation().toURI()).resolve(floorPackage());
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
    }

    /** The feature release of the image's runtime, from its {@code release} file. */
    static int javaFeature(Path image) throws IOException {
        Matcher m = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)").matcher(Files.readString(image.resolve("runtime/release")));
        if (!m.find()) throw new IOException("no JAVA_VERSION in " + image.resolve("runtime/release"));
        return Integer.parseInt(m.group(1));
    }
}
