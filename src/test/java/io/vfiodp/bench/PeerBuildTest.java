package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PeerBuildTest {

    @TempDir
    Path tmp;

    @Test
    void withoutAMirrorOrAScriptItSaysWhyInsteadOfFailing() throws Exception {
        Path script = Files.writeString(tmp.resolve("build.sh"), "echo unused\n");

        assertThat(PeerBuild.build(script, tmp.resolve("no-mirror"), tmp.resolve("out")))
                .isEqualTo(new PeerBuild.Unavailable("no git directory at " + tmp.resolve("no-mirror") + " (--peer GIT_DIR)"));
        assertThat(PeerBuild.build(tmp.resolve("none.sh"), tmp, tmp.resolve("out")))
                .isEqualTo(new PeerBuild.Unavailable("no build script at " + tmp.resolve("none.sh") + " (--peer-scripts DIR)"));
    }

    @Test
    void aFailingBuildIsReportedWithTheEndOfItsLog() throws Exception {
        Path script = Files.writeString(tmp.resolve("build.sh"), "echo 'go: cannot find module' >&2\nexit 3\n");

        PeerBuild b = PeerBuild.build(script, tmp, tmp.resolve("out"));

        assertThat(b).isInstanceOf(PeerBuild.Unavailable.class);
        assertThat(((PeerBuild.Unavailable) b).why()).contains("exited with 3").contains("go: cannot find module");
    }

    @Test
    void theBinaryIsTheLastLineTheScriptPrints() throws Exception {
        Path binary = Files.writeString(tmp.resolve("plugin"), "#!/bin/sh\n");
        binary.toFile().setExecutable(true);
        Path script = Files.writeString(tmp.resolve("build.sh"), "echo building >&2\necho " + binary + "\n");

        assertThat(PeerBuild.build(script, tmp, tmp.resolve("out"))).isEqualTo(new PeerBuild.Built(binary));
    }

    @Test
    void theContendersCommandsServeTheNodeToTheDirectory() {
        Path node = Path.of("/n");
        Path dir = Path.of("/dp");

        assertThat(new Contender.Ours(Path.of("/img"), "").command(node, dir)).isEqualTo(List.of("/img/bin/vfio-device-plugin",
                "serve", "--sysfs-root", "/n/sys", "--dev-root", "/n/dev", "--device-plugin-dir", "/dp", "--metrics-address", "127.0.0.1:0"));
        Contender.Ours withUevents = new Contender.Ours(Path.of("/img"), "new", List.of("--uevents=on"));
        assertThat(withUevents.command(node, dir)).endsWith("--metrics-address", "127.0.0.1:0", "--uevents=on");
        assertThat(withUevents.name()).isEqualTo("ours new (--uevents=on)");
        assertThat(new Contender.Nvidia(Path.of("/run.sh"), Path.of("/bin/p"), Path.of("/ids")).command(node, dir))
                .isEqualTo(List.of("bash", "/run.sh", "/bin/p", "/n", "/dp", "/ids"));
    }
}
