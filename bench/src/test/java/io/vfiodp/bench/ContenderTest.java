package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContenderTest {

    private static final Path NODE = Path.of("/n");
    private static final Path DIR = Path.of("/dp");

    @Test
    void oursIsTheImagesLauncherServingTheNodeToTheDirectory() {
        assertThat(new Contender.Ours(Path.of("/img"), "").command(NODE, DIR)).isEqualTo(List.of("/img/bin/vfio-device-plugin",
                "serve", "--sysfs-root", "/n/sys", "--dev-root", "/n/dev", "--device-plugin-dir", "/dp", "--metrics-address", "127.0.0.1:0"));
    }

    @Test
    void serveArgumentsFollowTheBenchsOwnAndNameTheImage() {
        Contender.Ours withUevents = new Contender.Ours(Path.of("/img"), "new", List.of("--uevents=on"));

        assertThat(withUevents.command(NODE, DIR)).endsWith("--metrics-address", "127.0.0.1:0", "--uevents=on");
        assertThat(withUevents.name()).isEqualTo("ours new (--uevents=on)");
    }

    /** The paths reach the shell as arguments, so any file name works; the binary is exec'd last, keeping the process' pid. */
    @Test
    void thePeerRunsInAMountNamespaceWithTheNodeAndTheKubeletAtTheFixedPaths() {
        Contender.Peer peer = new Contender.Peer("NVIDIA v1.6.0", Path.of("/opt/peer/plugin"), Path.of("/w/pci.ids"));

        assertThat(peer.command(NODE, DIR)).isEqualTo(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
                "mount --rbind \"$1\" /sys && mount --bind \"$2\" /dev/vfio && mount --bind \"$3\" /var/lib/kubelet/device-plugins"
                        + " && mount --bind \"$4\" /usr/pci.ids && exec \"$5\"",
                "sh", "/n/sys", "/n/dev/vfio", "/dp", "/w/pci.ids", "/opt/peer/plugin"));
        assertThat(peer.name()).isEqualTo("NVIDIA v1.6.0");
    }

    @Test
    void theFloorRunsOnTheImagesRuntimeWithItsFlagsAndItsOwnJar() {
        Contender.Floor floor = new Contender.Floor(Path.of("/img"), Path.of("/f/floor.jar"), List.of("-XX:SharedArchiveFile=/f/floor.aot"),
                "nvidia.com/T4", "10de:1eb8");

        assertThat(floor.command(NODE, DIR)).isEqualTo(List.of("env", "MALLOC_ARENA_MAX=2", "/img/runtime/bin/java", "@/img/lib/jvm.options",
                "-XX:CompileCommandFile=/img/lib/compile-commands", "-XX:SharedArchiveFile=/f/floor.aot", "-Djava.library.path=/img/lib/native",
                "-cp", "/f/floor.jar", "io.vfiodp.bench.floor.FloorPlugin", "/dp", "/n/sys", "nvidia.com/T4", "10de:1eb8"));
        assertThat(floor.name()).isEqualTo("floor");
    }

    @Test
    void aPeerBinaryMustBeAnExecutableFile(@TempDir Path tmp) throws Exception {
        Path plain = Files.writeString(tmp.resolve("plugin"), "#!/bin/sh\n");

        assertThat(PeerComparison.problem(tmp.resolve("missing"))).hasValue("--peer-binary " + tmp.resolve("missing") + ": not an executable file");
        assertThat(PeerComparison.problem(plain)).hasValue("--peer-binary " + plain + ": not an executable file");
        assertThat(PeerComparison.problem(tmp)).hasValue("--peer-binary " + tmp + ": not an executable file");
        assertThat(plain.toFile().setExecutable(true)).isTrue();
        assertThat(PeerComparison.problem(plain)).isEmpty();
    }
}
