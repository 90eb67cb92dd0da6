package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.checkout.Checkout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One set of JVM flags, src/main/image/jvm.options, and one install directory: the launcher reads
 * the file, the Dockerfile builds into and copies to the directory and starts the launcher, and
 * the DaemonSet spells the same command out.
 */
class ShippedFlagsTest {

    static final Path JVM_OPTIONS = ShippedJvmFlags.JVM_OPTIONS;
    static final Path LAUNCHER = Path.of("src/main/image/vfio-device-plugin");
    static final Path COMPILE_COMMANDS = Path.of("src/main/image/compile-commands");
    static final Path DOCKERFILE = Checkout.path("Dockerfile");
    /** Where the image installs the plugin directory that src/main/image/build.sh makes. */
    static final String IMAGE_HOME = "/opt/vfio-device-plugin";

    static Stream<Manifests> base() {
        return Manifests.of("base").stream();
    }

    static List<String> shippedFlags() {
        return ShippedJvmFlags.read();
    }

    /** The launcher's {@code exec} line, {@code $home} set to {@code home}, its @argfile expanded, {@code "$@"} dropped. */
    static List<String> launcherCommand(String home) throws IOException {
        return launcherCommand(home, home + "/lib/vfio-device-plugin.jsa");
    }

    /** The launcher's command for serve with a Kubernetes API configured: the archive trained with the API. */
    static List<String> launcherCommandWithApi(String home) throws IOException {
        return launcherCommand(home, home + "/lib/vfio-device-plugin-api.jsa");
    }

    private static List<String> launcherCommand(String home, String archive) throws IOException {
        String script = Files.readString(LAUNCHER).replace("\\\n", " ");
        assertThat(script).contains("archive=\"$home/lib/vfio-device-plugin.jsa\"", "archive=\"$home/lib/vfio-device-plugin-api.jsa\"");
        String exec = script.lines().filter(l -> l.startsWith("exec ")).findFirst().orElseThrow();
        List<String> command = new ArrayList<>();
        for (String word : exec.substring("exec ".length()).trim().split("\\s+")) {
            String w = word.replace("\"", "").replace("$archive", archive).replace("$home", home);
            if (w.equals("$@")) continue;
            if (w.startsWith("@")) {
                assertThat(w).isEqualTo("@" + home + "/lib/jvm.options");
                command.addAll(shippedFlags());
            } else {
                command.add(w);
            }
        }
        return command;
    }

    private static List<String> dockerfile(String instruction) throws IOException {
        return Files.readAllLines(DOCKERFILE).stream().filter(l -> l.startsWith(instruction + " ")).toList();
    }

    @Test
    void launcherRunsTheJarOnTheBundledRuntimeWithTheShippedFlagsAndArchive() throws IOException {
        List<String> expected = new ArrayList<>(List.of("/x/runtime/bin/java"));
        expected.addAll(shippedFlags());
        expected.addAll(List.of("-XX:CompileCommandFile=/x/lib/compile-commands", "-XX:SharedArchiveFile=/x/lib/vfio-device-plugin.jsa",
                "-Djava.library.path=/x/lib/native",
                "-Djna.boot.library.path=/x/lib/native", "-cp", "/x/lib/vfio-device-plugin.jar", "io.vfiodp.cli.Main"));

        assertThat(launcherCommand("/x")).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void daemonSetCommandIsTheLauncherCommandInTheImage(Manifests m) throws IOException {
        // serve in a pod has the API (in-cluster configuration): the launcher would map the archive trained with it
        assertThat(m.container().getCommand()).isEqualTo(launcherCommandWithApi(IMAGE_HOME));
    }

    /** The value the launcher gives MALLOC_ARENA_MAX unless the environment sets one. */
    static String launcherMallocArenaMax() throws IOException {
        Matcher m = Pattern.compile("(?m)^MALLOC_ARENA_MAX=\\$\\{MALLOC_ARENA_MAX:-(\\d+)}$").matcher(Files.readString(LAUNCHER));
        assertThat(m.find()).as("MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-N} in " + LAUNCHER).isTrue();
        return m.group(1);
    }

    @Test
    void launcherLimitsMallocArenasToTwo() throws IOException {
        assertThat(launcherMallocArenaMax()).isEqualTo("2");
        assertThat(Files.readString(LAUNCHER)).contains("\nexport MALLOC_ARENA_MAX\n");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void daemonSetLimitsMallocArenasAsTheLauncherDoes(Manifests m) throws IOException {
        assertThat(m.container().getEnv()).filteredOn(e -> e.getName().equals("MALLOC_ARENA_MAX"))
                .extracting(e -> e.getValue()).containsExactly(launcherMallocArenaMax());
    }

    @Test
    void dockerfileBuildsTheDirectoryWhereTheImageKeepsItAndStartsItsLauncher() throws IOException {
        assertThat(dockerfile("RUN")).anySatisfy(run -> assertThat(run).contains("./mvnw ", " package", "-Dimage.dir=" + IMAGE_HOME));
        assertThat(dockerfile("COPY")).contains("COPY --from=build " + IMAGE_HOME + " " + IMAGE_HOME);
        assertThat(dockerfile("ENTRYPOINT")).containsExactly("ENTRYPOINT [\"" + IMAGE_HOME + "/bin/vfio-device-plugin\"]");
        assertThat(dockerfile("CMD")).containsExactly("CMD [\"serve\"]");
    }

    /** The image names devices with the jar's pci.ids, the newest Debian has: no older system copy beside it. */
    @Test
    void dockerfileShipsNoPciIdsOfItsOwnSoTheImageUsesTheJarsCopy() throws IOException {
        assertThat(dockerfile("RUN")).noneSatisfy(run -> assertThat(run).contains(" pci.ids"));
        assertThat(dockerfile("COPY")).noneSatisfy(copy -> assertThat(io.vfiodp.host.pciids.PciIds.SYSTEM_LOCATIONS)
                .anySatisfy(location -> assertThat(copy).contains(location.toString())));
    }

    @Test
    void dockerfileLabelsTheImageWithItsSourceAndVersion() throws Exception {
        String dockerfile = Files.readString(DOCKERFILE);
        Matcher version = Pattern.compile("(?m)^ARG VERSION=(\\S+)$").matcher(dockerfile);

        assertThat(version.find()).as("ARG VERSION=... in the Dockerfile").isTrue();
        assertThat(version.group(1)).isEqualTo(ReleaseVersionTest.projectVersion());
        assertThat(dockerfile).contains("org.opencontainers.image.source=\"https://github.com/vfio-device-plugin/vfio-device-plugin\"",
                "org.opencontainers.image.version=\"${VERSION}\"");
    }
}
