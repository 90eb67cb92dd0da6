package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.kube.OffLoopWatchDispatcher;
import io.vfiodp.kube.kubevirt.KubeVirtCrs;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin directory the profile "image" built (target/image: the container image's
 * /opt/vfio-device-plugin), run through its launcher: the jlink runtime must hold every module
 * the code needs, including what only reflection, service loading and TLS reach, and the
 * class-data-sharing archive must map. Runs after {@code package} (failsafe).
 */
class ImageIT {

    private static final Path IMAGE = Path.of(System.getProperty("vfiodp.image", "target/image"));
    private static final Path LAUNCHER = IMAGE.resolve("bin/vfio-device-plugin");
    /** The demo's and the test kit's jars, which the image leaves out and build.sh's training run adds (target/demo-lib). */
    private static final Path DEMO = Path.of(System.getProperty("vfiodp.demo", "target/demo-lib/vfio-device-plugin-demo.jar"));
    private static final Path TESTKIT = Path.of(System.getProperty("vfiodp.testkit", "target/demo-lib/kubelet-testkit.jar"));
    private static final Path T4_NUMA = SysfsFixtures.committedRoot().resolve("t4-numa");
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";

    @TempDir Path dir;

    record Run(int exit, String out, String err) {}

    private ProcessBuilder launcher(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("JDK_JAVA_OPTIONS") || k.startsWith("KUBE") || k.startsWith("VFIO_DP_"));
        pb.environment().putAll(env);
        return pb;
    }

    private Run run(Map<String, String> env, String... args) throws Exception {
        return run(launcher(env, args));
    }

    private Run run(ProcessBuilder command) throws Exception {
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = command.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(String.join(" ", command.command()) + " did not finish within 60 s; stderr: " + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** -Xshare:on: the JVM refuses to start when it cannot map the archive (instead of starting slowly). */
    private Map<String, String> archiveRequired(Path cdsLog) throws IOException {
        String tags = runtimeFeature() >= 25 ? "cds=info,aot=info" : "cds=info";
        return Map.of("JDK_JAVA_OPTIONS", "-Xshare:on -Xlog:" + tags + ":file=" + cdsLog);
    }

    /** The Java feature version of the image's runtime, from its release file (JAVA_VERSION="25.0.3"). */
    private static int runtimeFeature() throws IOException {
        Matcher m = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)").matcher(Files.readString(IMAGE.resolve("runtime/release")));
        assertThat(m.find()).as("JAVA_VERSION in " + IMAGE.resolve("runtime/release")).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private Process serve(Map<String, String> env, Path pluginDir, Path log, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("serve", "--sysfs-root", T4_NUMA.resolve("sys").toAbsolutePath().toString(),
                "--dev-root", T4_NUMA.resolve("dev").toAbsolutePath().toString(), "--device-plugin-dir", pluginDir.toString(),
                "--metrics-address", "127.0.0.1:0"));
        args.addAll(List.of(extra));
        return launcher(env, args.toArray(String[]::new)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
    }

    @Test
    void serveHelpRunsOnTheImageWithItsClassDataArchiveMapped() throws Exception {
        Path cdsLog = dir.resolve("cds.log");

        Run help = run(archiveRequired(cdsLog), "serve", "--help");

        assertThat(help.exit()).as(help.err()).isZero();
        assertThat(help.out()).startsWith("Usage: vfio-device-plugin serve");
        String archive = IMAGE.resolve("lib/vfio-device-plugin.jsa").toRealPath().toString();
        if (runtimeFeature() >= 25) {
            // build.sh: an AOT cache, a static archive with the classes loaded and linked up front
            assertThat(Files.readString(cdsLog)).contains("Opened shared archive file " + archive + ".", "Mapped static  region #0",
                    "Using AOT-linked classes: true");
        } else {
            assertThat(Files.readString(cdsLog)).contains("Mapped dynamic region #0");
        }
    }

    /**
     * build.sh trains a second archive on the demo's DRA part (serve with the API); the launcher
     * maps it for serve when an API is configured, and the first one for anything else.
     */
    @Test
    void serveWithAnApiMapsTheArchiveTrainedWithTheApi() throws Exception {
        String apiArchive = IMAGE.resolve("lib/vfio-device-plugin-api.jsa").toRealPath().toString();
        String archive = IMAGE.resolve("lib/vfio-device-plugin.jsa").toRealPath().toString();
        Path serveLog = dir.resolve("serve-cds.log");
        Path inventoryLog = dir.resolve("inventory-cds.log");
        Map<String, String> serveEnv = new HashMap<>(archiveRequired(serveLog));
        serveEnv.put("KUBECONFIG", dir.resolve("kubeconfig").toString());
        Map<String, String> inventoryEnv = new HashMap<>(archiveRequired(inventoryLog));
        inventoryEnv.put("KUBECONFIG", dir.resolve("kubeconfig").toString());

        Path optionsOnlyLog = dir.resolve("options-only-cds.log");
        Map<String, String> optionsOnlyEnv = new HashMap<>(archiveRequired(optionsOnlyLog));
        optionsOnlyEnv.put("KUBERNETES_SERVICE_HOST", "10.96.0.1");

        Run serve = run(serveEnv, "serve", "--help");
        Run inventory = run(inventoryEnv, "inventory", "--help");
        // as a DaemonSet may run the image: options only, which Main runs as serve
        Run optionsOnly = run(optionsOnlyEnv, "--sysfs-root", "/sys", "--help");

        assertThat(serve.exit()).as(serve.err()).isZero();
        assertThat(inventory.exit()).as(inventory.err()).isZero();
        assertThat(optionsOnly.exit()).as(optionsOnly.err()).isZero();
        assertThat(optionsOnly.out()).startsWith("Usage: vfio-device-plugin serve");
        assertThat(Files.readString(optionsOnlyLog)).contains(" " + apiArchive + ".");
        // JDK 25 logs "Opened shared archive file X.", JDK 21 "Opened archive X."
        assertThat(Files.readString(serveLog)).contains(" " + apiArchive + ".");
        assertThat(Files.readString(inventoryLog)).contains(" " + archive + ".").doesNotContain(apiArchive);
    }

    /**
     * build.sh rewrites picocli's Java 5 class files, which no AOT cache holds, as Java 8 class
     * files with stack maps: they must come from the archive, and each must still verify.
     */
    @Test
    void picocliComesFromTheArchiveAndEachRewrittenClassVerifies() throws Exception {
        Assumptions.assumeTrue(runtimeFeature() >= 25, "an AOT cache (JDK 25+) only: build.sh leaves the jar as it is before");
        Path classLog = dir.resolve("classes.log");

        Run help = run(Map.of("JDK_JAVA_OPTIONS", "-Xshare:on -Xlog:class+load=info:file=" + classLog), "serve", "--help");

        assertThat(help.exit()).as(help.err()).isZero();
        // the help screen's own classes are not on serve's path, which the archive was trained on
        List<String> loaded = Files.readAllLines(classLog);
        assertThat(loaded).filteredOn(l -> l.contains(" picocli.") && l.endsWith(" source: shared objects file")).hasSizeGreaterThan(100);
        assertThat(loaded).filteredOn(l -> l.contains(" picocli.CommandLine source: ")).singleElement().asString()
                .endsWith(" source: shared objects file");
        Path jarFile = IMAGE.resolve("lib/vfio-device-plugin.jar");
        List<String> names = new ArrayList<>();
        // a loader of its own over the image's jar: this JVM verifies every class such a loader defines
        try (JarFile jar = new JarFile(jarFile.toFile());
             URLClassLoader loader = new URLClassLoader(new URL[] {jarFile.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            for (JarEntry e : jar.stream().filter(e -> e.getName().startsWith("picocli/") && e.getName().endsWith(".class")).toList()) {
                try (var in = new java.io.DataInputStream(jar.getInputStream(e))) {
                    in.readInt(); // magic
                    in.readUnsignedShort(); // minor
                    assertThat(in.readUnsignedShort()).as("class file version of " + e.getName()).isEqualTo(52);
                }
                String name = e.getName().substring(0, e.getName().length() - ".class".length()).replace('/', '.');
                assertThat(Class.forName(name, true, loader).getClassLoader()).as(name).isSameAs(loader);
                names.add(name);
            }
        }
        assertThat(names).hasSizeGreaterThan(200).contains("picocli.CommandLine");
    }

    /** The image holds no demo: its {@code demo} says so in one line, and where the demo is, and ends. */
    @Test
    void demoOnTheImageSaysWhatItNeedsInOneLine() throws Exception {
        Run demo = run(Map.of(), "demo");

        assertThat(demo.exit()).isEqualTo(1);
        assertThat(demo.out()).isEmpty();
        assertThat(demo.err()).isEqualTo("vfio-device-plugin demo: the demo is not in the jar or the image (it runs on the project's test kit):"
                + " run bin/vfio-device-plugin demo in a checkout after ./mvnw -B -q package -DskipTests\n");
    }

    /** The demo as build.sh's training run starts it: the launcher's command with the demo and the test kit after the jar. */
    @Test
    void demoRunsOnTheImageWithTheTestKitWithoutAJdkWarning() throws Exception {
        List<String> command = new ArrayList<>(ShippedFlagsTest.launcherCommand(IMAGE.toAbsolutePath().toString()));
        int cp = command.indexOf("-cp") + 1;
        command.set(cp, command.get(cp) + ":" + DEMO.toAbsolutePath() + ":" + TESTKIT.toAbsolutePath());
        command.set(command.indexOf("io.vfiodp.cli.Main"), "io.vfiodp.cli.DemoMain");
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("JDK_JAVA_OPTIONS") || k.startsWith("KUBE") || k.startsWith("VFIO_DP_"));
        pb.environment().putAll(archiveRequired(dir.resolve("cds.log")));
        Run demo = run(pb);

        assertThat(demo.exit()).as(demo.err()).isZero();
        assertThat(demo.out()).contains("  " + T4 + "  endpoint vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock  preferred-allocation true",
                "    env     PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4=0000:b1:00.0",
                "== Shut down: the streams ended without an empty device list, plugin sockets removed");
        // the mock API server is the demo's, from demo/target/demo-lib, and never shipped
        assertThat(demo.out()).endsWith("\n== DRA: skipped: fabric8's mock API server is not on the class path (the image and `java -jar`"
                + " leave it out; bin/vfio-device-plugin adds demo/target/demo-lib, which ./mvnw package makes)\n");
        assertThat(demo.err().lines().filter(l -> !l.startsWith("NOTE: Picked up JDK_JAVA_OPTIONS"))).isEmpty();
    }

    /**
     * The project's license and THIRD-PARTY.txt lie beside the jar: every artifact the jar holds a POM of is listed with
     * a license (the build generated the list from Maven's metadata), and so is the Java runtime, with its notices.
     */
    @Test
    void theLicenseAndEveryBundledArtifactsLicenseLieBesideTheJar() throws Exception {
        String listing = Files.readString(IMAGE.resolve("lib/THIRD-PARTY.txt"));
        List<String> bundled = new ArrayList<>();
        try (JarFile jar = new JarFile(IMAGE.resolve("lib/vfio-device-plugin.jar").toFile())) {
            Pattern props = Pattern.compile("META-INF/maven/([^/]+)/([^/]+)/pom.properties");
            jar.stream().map(JarEntry::getName).map(props::matcher).filter(Matcher::matches)
                    .filter(m -> !m.group(1).equals("io.vfiodp")).forEach(m -> bundled.add(m.group(1) + ":" + m.group(2) + ":"));
            assertThat(new String(jar.getInputStream(jar.getEntry("META-INF/LICENSE")).readAllBytes(), StandardCharsets.UTF_8))
                    .isEqualTo(Files.readString(IMAGE.resolve("lib/LICENSE")));
        }

        assertThat(Files.readString(IMAGE.resolve("lib/LICENSE"))).contains("Apache License", "Version 2.0, January 2004");
        assertThat(bundled).as("artifacts in the jar").hasSizeGreaterThan(30);
        for (String artifact : bundled) {
            assertThat(listing).as("THIRD-PARTY.txt names " + artifact).containsPattern("(?m)^ +\\([^)]+\\)( \\([^)]+\\))* .*\\(" + Pattern.quote(artifact));
        }
        String runtime = Files.readString(IMAGE.resolve("runtime/release"));
        Matcher version = Pattern.compile("(?m)^JAVA_VERSION=\"([^\"]+)\"").matcher(runtime);
        assertThat(version.find()).isTrue();
        assertThat(listing).contains("OpenJDK " + version.group(1), "GPL-2.0-only WITH Classpath-exception-2.0", "runtime/legal/");
        assertThat(IMAGE.resolve("runtime/legal/java.base")).isDirectory();
    }

    /**
     * {@code --version}: the project's one version (pom.xml's revision) and the commit the build recorded: HEAD in a
     * clone; in a linked worktree git-commit-id-maven-plugin reads the main worktree's HEAD, so there a commit of
     * this repository is all that can be asked.
     */
    @Test
    void versionNamesTheProjectsVersionAndTheCommit() throws Exception {
        Run version = run(Map.of(), "--version");
        Matcher m = Pattern.compile("vfio-device-plugin (\\S+) \\(commit ([0-9a-f]{12}|unknown)\\)").matcher(version.out().trim());

        assertThat(version.exit()).isZero();
        assertThat(m.matches()).as(version.out()).isTrue();
        assertThat(m.group(1)).isEqualTo(ReleaseVersionTest.projectVersion());
        String gitDir = git("rev-parse", "--git-dir");
        if (gitDir == null) {
            assertThat(m.group(2)).as("no git at hand: the build could not record one").isEqualTo("unknown");
        } else if (gitDir.equals(git("rev-parse", "--git-common-dir"))) {
            assertThat(m.group(2)).isEqualTo(git("rev-parse", "--short=12", "HEAD"));
        } else {
            assertThat(git("cat-file", "-t", m.group(2))).as("a commit of this repository").isEqualTo("commit");
        }
    }

    /** git's answer in this checkout, or null when git or the checkout is not there. */
    private static String git(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * What only the tests, the demo and the benchmarks use stays out of the jar and the image: the demo (module demo), the
     * benchmarks (module bench, JMH), the test kit, the mock API server, the agent's test helpers.
     */
    @Test
    void theImageHoldsNoDemoBenchmarkTestKitNorMockApiServer() throws Exception {
        Pattern benchmark = Pattern.compile(".*Bench(mark)?(\\$.*)?\\.class");
        try (JarFile jar = new JarFile(IMAGE.resolve("lib/vfio-device-plugin.jar").toFile())) {
            assertThat(jar.stream().map(JarEntry::getName)).contains("io/vfiodp/proto/deviceplugin/v1beta1/DevicePluginGrpc.class",
                            "io/vfiodp/cli/Main.class")
                    .noneMatch(n -> n.startsWith("io/vfiodp/demo/") || n.startsWith("io/vfiodp/cli/Demo"))
                    .noneMatch(n -> n.startsWith("io/vfiodp/bench/") || benchmark.matcher(n).matches() || n.startsWith("org/openjdk/jmh/"))
                    .noneMatch(n -> n.startsWith("io/vfiodp/testkit/") || n.startsWith("io/fabric8/kubernetes/client/server/mock/")
                            || n.startsWith("io/fabric8/mockwebserver/") || n.startsWith("io/vertx/"))
                    .noneMatch(n -> n.startsWith("io/vfiodp/host/fixtures/") || n.startsWith("io/vfiodp/checkout/"));
        }
        try (JarFile demo = new JarFile(DEMO.toFile()); JarFile kit = new JarFile(TESTKIT.toFile())) {
            assertThat(demo.stream().map(JarEntry::getName)).contains("io/vfiodp/demo/DemoRun.class", "io/vfiodp/cli/DemoMain.class");
            assertThat(kit.stream().map(JarEntry::getName)).contains("io/vfiodp/testkit/deviceplugin/KubeletSimulator.class");
        }
        assertThat(IMAGE.resolve("lib/demo-lib")).doesNotExist();
        try (var lib = Files.list(IMAGE.resolve("lib"))) {
            assertThat(lib.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains("testkit"));
        }
    }

    @Test
    void serveRegistersWhenOnlyTmpIsWritable() throws Exception {
        // as in the DaemonSet: read-only root file system (no home directory to write), an emptyDir on /tmp
        assertServeRegistersAndExitsZero(Files.createDirectory(dir.resolve("tmp")).toString());
    }

    @Test
    void serveRegistersWithNoWritableDirectoryAtAll() throws Exception {
        // a tmpdir no one can create files in, as /tmp on a read-only root file system without the emptyDir:
        // the launcher's natives (lib/native) need no unpacking
        assertServeRegistersAndExitsZero("/proc");
    }

    /** serve on the image, with no home directory to write and {@code tmpdir} as java.io.tmpdir, registers and exits 0 on SIGTERM. */
    private void assertServeRegistersAndExitsZero(String tmpdir) throws Exception {
        Path pluginDir = Files.createDirectory(dir.resolve("device-plugins"));
        try (KubeletSimulator kubelet = KubeletSimulator.start(pluginDir)) {
            Process p = serve(Map.of("HOME", "/dev/null", "JDK_JAVA_OPTIONS", "-Djava.io.tmpdir=" + tmpdir), pluginDir, dir.resolve("serve.log"));
            try {
                kubelet.awaitRegistrations(List.of(T4), 1, Duration.ofSeconds(30));
            } finally {
                stop(p);
            }
            assertThat(p.exitValue()).as(Files.readString(dir.resolve("serve.log"))).isZero();
        }
    }

    @Test
    void theJarAloneStopsNamingTheTransportWhenTmpIsNotWritable() throws Exception {
        Path pluginDir = Files.createDirectory(dir.resolve("device-plugins"));
        try (KubeletSimulator kubelet = KubeletSimulator.start(pluginDir)) {
            // without the image's lib/native, netty unpacks its epoll library to java.io.tmpdir (or /tmp when that
            // is not a directory at all): here it cannot
            ProcessBuilder jarAlone = new ProcessBuilder(IMAGE.resolve("runtime/bin/java").toString(), "-Djava.io.tmpdir=/proc", "-jar",
                    IMAGE.resolve("lib/vfio-device-plugin.jar").toString(), "serve", "--sysfs-root", T4_NUMA.resolve("sys").toString(),
                    "--dev-root", T4_NUMA.resolve("dev").toString(), "--device-plugin-dir", pluginDir.toString(), "--metrics-address",
                    "127.0.0.1:0", "--kubevirt", "off").redirectErrorStream(true).redirectOutput(dir.resolve("serve.log").toFile());
            jarAlone.environment().keySet().removeIf(k -> k.startsWith("JDK_JAVA_OPTIONS") || k.startsWith("VFIO_DP_"));
            Process p = jarAlone.start();
            boolean exited = p.waitFor(30, TimeUnit.SECONDS);
            if (!exited) stop(p);

            assertThat(exited).isTrue();
            assertThat(p.exitValue()).isEqualTo(1);
            assertThat(Files.readString(dir.resolve("serve.log"))).contains("vfio-device-plugin serve: netty's epoll transport is unavailable");
            assertThat(kubelet.registrations()).isEmpty();
        }
    }

    @Test
    void serveFollowsTheKubeVirtCrOverTls() throws Exception {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMockServer api = new KubernetesMockServer(new Context(Serialization.jsonMapper()), new MockWebServer(), responses,
                new OffLoopWatchDispatcher(responses), true);
        api.init(InetAddress.getByName("127.0.0.1"), 0);
        Path pluginDir = Files.createDirectory(dir.resolve("device-plugins"));
        try (KubernetesClient client = api.createClient(); KubeletSimulator kubelet = KubeletSimulator.start(pluginDir)) {
            MockKubeApi.createKubeVirtCrd(client);
            KubeVirtCrs.create(client, """
                    pciHostDevices:
                      - {pciVendorSelector: "10DE:1EB8", resourceName: example.com/T4_OVER_TLS, externalResourceProvider: true}
                    """);
            Path kubeconfig = dir.resolve("kubeconfig");
            Files.writeString(kubeconfig, """
                    apiVersion: v1
                    kind: Config
                    clusters: [{name: mock, cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}}]
                    users: [{name: plugin, user: {token: plugin-token}}]
                    contexts: [{name: mock, context: {cluster: mock, user: plugin}}]
                    current-context: mock
                    """.formatted(api.getPort()), StandardCharsets.UTF_8);

            // -Xshare:on: serve with the API on the archive trained with it, or no start at all
            Process p = serve(Map.of("KUBECONFIG", kubeconfig.toString(), "JDK_JAVA_OPTIONS", "-Xshare:on -Djava.io.tmpdir=" + dir), pluginDir,
                    dir.resolve("serve.log"));
            try {
                kubelet.awaitRegistrations(List.of("example.com/T4_OVER_TLS"), 1, Duration.ofSeconds(30));
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("serve's output:\n" + Files.readString(dir.resolve("serve.log")), e);
            } finally {
                stop(p);
            }
            assertThat(kubelet.registrations()).extracting(KubeletSimulator.Registration::resourceName)
                    .as(Files.readString(dir.resolve("serve.log"))).containsOnly("example.com/T4_OVER_TLS");
        } finally {
            api.destroy();
        }
    }

    @Test
    void everyPathTheDaemonSetStartsIsInTheImage() throws Exception {
        List<String> words = new ArrayList<>(ShippedFlagsTest.launcherCommandWithApi(ShippedFlagsTest.IMAGE_HOME));
        words.addAll(ShippedFlagsTest.launcherCommand(ShippedFlagsTest.IMAGE_HOME));
        for (String word : words) {
            String path = word.replaceFirst("^-(XX:SharedArchiveFile|XX:CompileCommandFile|Djava\\.library\\.path|Djna\\.boot\\.library\\.path)=", "");
            if (!path.startsWith(ShippedFlagsTest.IMAGE_HOME + "/")) continue;
            Path inImage = IMAGE.resolve(path.substring(ShippedFlagsTest.IMAGE_HOME.length() + 1));
            if (word.startsWith("-D")) {
                assertThat(inImage).as(word).isDirectory();
            } else {
                assertThat(inImage).as(word).isRegularFile();
            }
        }
        String arch = System.getProperty("os.arch").equals("aarch64") ? "aarch_64" : "x86_64";
        assertThat(IMAGE.resolve("lib/native")).isDirectoryContaining(p -> p.getFileName().toString().equals("libjnidispatch.so"))
                .isDirectoryContaining(p -> p.getFileName().toString().equals(
                        "libio_grpc_netty_shaded_netty_transport_native_epoll_" + arch + ".so"));
        assertThat(LAUNCHER).isExecutable();
        assertThat(IMAGE.resolve("lib/jvm.options")).hasSameTextualContentAs(ShippedFlagsTest.JVM_OPTIONS);
        assertThat(IMAGE.resolve("lib/compile-commands")).hasSameTextualContentAs(ShippedFlagsTest.COMPILE_COMMANDS);
    }
}
