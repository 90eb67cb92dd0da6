package io.vfiodp.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exit statuses, on nodes whose kubelet is there and whose VFIO container answers. */
class DoctorRunTest {

    @TempDir Path dir;

    private int run(String node, StringWriter out) throws IOException {
        KubeletPaths kubelet = new KubeletPaths(dir.resolve("device-plugins"), false, dir.resolve("plugins_registry"), dir.resolve("cdi"));
        try (ServerSocketChannel socket = Nodes.kubeletSocket(dir.resolve("device-plugins"))) {
            return DoctorRun.run(Nodes.settings(node, Optional.empty(), kubelet), Nodes.AVAILABLE, Optional::empty, false, new PrintWriter(out));
        }
    }

    @Test
    void aReadyNodeExitsZeroWithEveryCheckOk() throws IOException {
        StringWriter out = new StringWriter();

        assertThat(run("doctor-ready", out)).isZero();
        assertThat(out.toString()).endsWith("ready: 0 fail, 0 warn, 26 ok\n");
    }

    @Test
    void aNodeWithWarningsOnlyExitsOne() throws IOException {
        StringWriter out = new StringWriter();

        assertThat(run("doctor-amd-shared", out)).isEqualTo(1);
        assertThat(out.toString()).endsWith("ready, with warnings: 0 fail, 9 warn, 33 ok\n");
    }

    @Test
    void aNodeThatCannotPassAnythingThroughExitsTwo() throws IOException {
        assertThat(run("doctor-iommu-off", new StringWriter())).isEqualTo(2);
    }
}
