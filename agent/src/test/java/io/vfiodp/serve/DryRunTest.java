package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.cli.Main;
import io.vfiodp.policy.config.ConfigSource.LayoutSetting;
import io.vfiodp.policy.config.DesiredMdevTypes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class DryRunTest {

    @TempDir Path tmp;

    private String dryRun(String fixture, String config) throws Exception {
        Path file = Files.writeString(tmp.resolve("config.yaml"), config);
        Path node = Path.of("src/test/resources/sysfs-fixtures", fixture);
        StringWriter out = new StringWriter();
        CommandLine cl = Main.commandLine(java.util.Map.of());
        cl.setOut(new PrintWriter(out));
        int status = cl.execute("serve", "--dry-run", "--sysfs-root", node.resolve("sys").toString(), "--dev-root", node.resolve("dev").toString(),
                "--config", file.toString(), "--state-dir", tmp.resolve("state").toString(), "--pod-resources-socket", "/nonexistent/kubelet.sock");
        assertThat(status).isZero();
        return out.toString();
    }

    @Test
    void dryRunOnTheT4VgpuNodePrintsDesiredVersusActualAndThePlannedWrites() throws Exception {
        String printed = dryRun("t4-vgpu", "mediatedDevicesConfiguration:\n  mediatedDeviceTypes: [GRID_T4-2Q, nvidia-230]\n");

        assertThat(printed).isEqualTo("""
                vGPU layout: desired GRID_T4-2Q, nvidia-230 from mediatedDeviceTypes
                GPU            KIND   DESIRED                  ACTUAL
                0000:3b:00.0   mdev   GRID T4-1Q               3 x GRID T4-1Q
                0000:d9:00.0   mdev   GRID T4-2Q               2 x GRID T4-2Q
                planned writes: 19
                """ + "  create mdev nvidia-230 (GRID T4-1Q) on 0000:3b:00.0\n".repeat(13)
                + "  create mdev nvidia-231 (GRID T4-2Q) on 0000:d9:00.0\n".repeat(6)
                + "note: nothing is planned for removal: /nonexistent/kubelet.sock does not exist (mount the kubelet's /var/lib/kubelet/pod-resources)\n");
    }

    @Test
    void dryRunOnTheL40sNodePlansOneFreeVfPerGpu() throws Exception {
        String printed = dryRun("l40s-sriov", "mediatedDevicesConfiguration:\n  mediatedDeviceTypes: [NVIDIA_L40S-4Q, NVIDIA_L40S-1Q]\n");

        assertThat(printed).isEqualTo("""
                vGPU layout: desired NVIDIA_L40S-4Q, NVIDIA_L40S-1Q from mediatedDeviceTypes
                GPU            KIND   DESIRED                  ACTUAL
                0000:41:00.0   sriov  NVIDIA L40S-4Q           2 x NVIDIA L40S-4Q, 2 free VF(s)
                0000:c1:00.0   sriov  NVIDIA L40S-1Q           1 x NVIDIA L40S-1Q, 1 free VF(s)
                planned writes: 2
                  set vGPU type 1150 (NVIDIA L40S-4Q) on VF 0000:41:00.6 of 0000:41:00.0
                  set vGPU type 1147 (NVIDIA L40S-1Q) on VF 0000:c1:00.5 of 0000:c1:00.0
                note: one VF per SR-IOV GPU is shown; the others follow, each as its creatable_vgpu_types then allows
                note: nothing is planned for removal: /nonexistent/kubelet.sock does not exist (mount the kubelet's /var/lib/kubelet/pod-resources)
                """);
    }

    @Test
    void dryRunWithoutALayoutSaysSo() throws Exception {
        assertThat(dryRun("t4-vgpu", "permittedHostDevices: {}\n"))
                .isEqualTo("no vGPU layout configured: no KubeVirt CR layout for this node and --config has no mediatedDevicesConfiguration;"
                        + " nothing would be written\n");
    }

    @Test
    void theKubeVirtCrLayoutWinsOverTheConfigFile() throws Exception {
        Path node = Path.of("src/test/resources/sysfs-fixtures", "t4-vgpu");
        ServeConfig config = new ServeConfig(node.resolve("sys"), node.resolve("dev"), Path.of("/proc"), Optional.empty(), Optional.empty(),
                tmp.resolve("plugins"), false, Optional.empty(), Optional.empty(), Optional.of(Duration.ofSeconds(30)), UeventMode.off, "", "",
                new ServeConfig.Vgpu(false, tmp.resolve("state"), Path.of("/nonexistent/kubelet.sock")), ServeConfig.Dra.OFF, "test");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int status = DryRun.print(config, new LayoutSetting.Desired(
                new DesiredMdevTypes(List.of("GRID_T4-2Q"), true, "KubeVirt CR nodeMediatedDeviceTypes[0]"), "KubeVirt CR kubevirt/kubevirt"),
                new PrintWriter(out), new PrintWriter(err));

        assertThat(status).isZero();
        assertThat(out.toString()).startsWith("""
                vGPU layout: desired GRID_T4-2Q from KubeVirt CR nodeMediatedDeviceTypes[0]
                GPU            KIND   DESIRED                  ACTUAL
                0000:3b:00.0   mdev   GRID T4-2Q               3 x GRID T4-1Q
                0000:d9:00.0   mdev   GRID T4-2Q               2 x GRID T4-2Q
                """);
    }
}
