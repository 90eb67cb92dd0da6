package io.vfiodp.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeletCheckTest {

    @TempDir Path dir;

    private List<Finding> run(KubeletPaths paths) {
        NodeView v = Nodes.view("doctor-ready");
        return new KubeletCheck().run(new NodeView(v.roots(), v.kernel(), v.host(), v.vfio(), v.config(), v.pciIds(), v.policy(),
                v.permittedFrom(), v.candidates(), v.resets(), KubeletFacts.read(paths), v.kubevirt()));
    }

    private KubeletPaths paths(boolean dra) {
        return new KubeletPaths(dir.resolve("device-plugins"), dra, dir.resolve("plugins_registry"), dir.resolve("cdi"));
    }

    @Test
    void aDevicePluginDirectoryWithTheKubeletsSocketIsOk() throws IOException {
        try (ServerSocketChannel kubelet = Nodes.kubeletSocket(dir.resolve("device-plugins"))) {
            assertThat(run(paths(false)).getFirst()).isEqualTo(Finding.of("kubelet.device-plugins",
                    new Outcome.Ok(dir.resolve("device-plugins") + "/kubelet.sock is there: serve can register")));
        }
    }

    @Test
    void noDevicePluginDirectoryFailsBecauseServeCannotStart() {
        assertThat(run(paths(false)).getFirst()).isEqualTo(Finding.of("kubelet.device-plugins", new Outcome.Fail(
                dir.resolve("device-plugins") + " does not exist: serve cannot start",
                Fix.advice("mount the kubelet's device-plugin directory there (hostPath /var/lib/kubelet/device-plugins), or point"
                        + " --device-plugin-dir at <kubelet --root-dir>/device-plugins"))));
    }

    @Test
    void noKubeletSocketWarnsThatTheKubeletIsNotRunning() throws IOException {
        Files.createDirectories(dir.resolve("device-plugins"));

        assertThat(run(paths(false)).getFirst().outcome()).isEqualTo(new Outcome.Warn(dir.resolve("device-plugins")
                + "/kubelet.sock does not exist: the kubelet is not running, or its root directory is elsewhere",
                Fix.advice("start the kubelet; serve registers as soon as kubelet.sock appears")));
    }

    @Test
    void aKubeletSocketThatIsAPlainFileWarns() throws IOException {
        Files.createDirectories(dir.resolve("device-plugins"));
        Files.writeString(dir.resolve("device-plugins/kubelet.sock"), "");

        assertThat(run(paths(false)).getFirst().outcome().detail()).isEqualTo(dir.resolve("device-plugins") + "/kubelet.sock is not a socket");
    }

    @Test
    void draDirectoriesMissingAreFineWithoutDra() {
        assertThat(run(paths(false)).subList(1, 3)).containsExactly(
                Finding.of("kubelet.plugins-registry", new Outcome.Ok(dir.resolve("plugins_registry") + " does not exist (needed only with --dra-resources)")),
                Finding.of("kubelet.cdi", new Outcome.Ok(dir.resolve("cdi") + " does not exist (needed only with --dra-resources)")));
    }

    @Test
    void aMissingPluginRegistryFailsWithDra() {
        assertThat(run(paths(true)).get(1).outcome()).isEqualTo(new Outcome.Fail(dir.resolve("plugins_registry")
                + " does not exist: the DRA driver registers there, with --dra-resources",
                Fix.advice("mount the kubelet's plugin registry (hostPath /var/lib/kubelet/plugins_registry), or point --dra-registry-dir at it")));
    }

    @Test
    void presentDraDirectoriesAreOkWithDra() throws IOException {
        Files.createDirectories(dir.resolve("plugins_registry"));
        Files.createDirectories(dir.resolve("cdi"));

        assertThat(run(paths(true)).subList(1, 3)).extracting(Finding::outcome).containsExactly(
                new Outcome.Ok(dir.resolve("plugins_registry") + " is there: the DRA driver registers there"),
                new Outcome.Ok(dir.resolve("cdi") + " is there: the DRA driver writes CDI specs there"));
    }
}
