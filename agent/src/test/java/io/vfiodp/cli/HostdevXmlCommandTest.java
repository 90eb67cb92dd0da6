package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.libvirt.LibvirtTools;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class HostdevXmlCommandTest {

    @TempDir
    Path dir;

    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();

    int run(String... args) {
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        return cl.execute(args);
    }

    Path file(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    Path envFile() throws IOException {
        return file("env", """
                PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4=0000:3b:00.0,0000:86:00.0
                VFIO_DP_COMPANIONS_NVIDIA_COM_TU104GL_TESLA_T4=0000:3b:00.0=0000:3b:00.1,0000:86:00.0=
                MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q=4b20d080-1b54-4048-85b3-a6a62d165c01
                """);
    }

    Path vmiFile() throws IOException {
        return file("vmi.yaml", """
                apiVersion: kubevirt.io/v1
                kind: VirtualMachineInstance
                metadata:
                  name: vmi-t4
                spec:
                  domain:
                    devices:
                      gpus:
                      - name: gpu0
                        deviceName: nvidia.com/TU104GL_TESLA_T4
                      - name: v0
                        deviceName: nvidia.com/GRID_T4-1Q
                      hostDevices:
                      - name: extra
                        deviceName: nvidia.com/TU104GL_TESLA_T4
                """);
    }

    @Test
    void printsTheHostdevElementsForTheVmi() throws IOException {
        assertThat(run("hostdev-xml", "--env-file", envFile().toString(), "--vmi", vmiFile().toString())).isZero();
        // as virt-launcher orders them: hostDevices[] first, then gpus[] with PCI before mdev
        assertThat(out.toString()).isEqualTo("""
                <hostdev mode="subsystem" type="pci" managed="no">
                  <source>
                    <address domain="0x0000" bus="0x86" slot="0x00" function="0x0"/>
                  </source>
                  <alias name="ua-hostdevice-extra"/>
                </hostdev>
                <hostdev mode="subsystem" type="pci" managed="no">
                  <source>
                    <address domain="0x0000" bus="0x3b" slot="0x00" function="0x0"/>
                  </source>
                  <alias name="ua-gpu-gpu0"/>
                </hostdev>
                <hostdev mode="subsystem" type="mdev" model="vfio-pci" display="on" ramfb="on">
                  <source>
                    <address uuid="4b20d080-1b54-4048-85b3-a6a62d165c01"/>
                  </source>
                  <alias name="ua-gpu-v0"/>
                </hostdev>
                """);
        assertThat(err.toString()).isEmpty();
        LibvirtTools.assertHostdevsAccepted(out.toString());
    }

    @Test
    void withDomainAndCompanionsPrintsTheMergedDomain() throws IOException {
        Path domain;
        try (InputStream in = getClass().getResourceAsStream("/libvirt/kubevirt-gpu-domain.xml")) {
            domain = Files.write(dir.resolve("domain.xml"), in.readAllBytes());
        }
        assertThat(run("hostdev-xml", "--env-file", envFile().toString(), "--vmi", vmiFile().toString(),
                "--domain", domain.toString(), "--companions")).isZero();
        String merged = out.toString();
        assertThat(merged).startsWith("<domain type=\"kvm\" xmlns:qemu=\"http://libvirt.org/schemas/domain/qemu/1.0\">\n")
                .contains("\t\t\t<alias name=\"ua-gpu-gpu0\"/>\n"
                        + "\t\t\t<address type=\"pci\" domain=\"0x0000\" bus=\"0x00\" slot=\"0x12\" function=\"0x0\" multifunction=\"on\"/>\n")
                .contains("\t\t\t<alias name=\"ua-gpu-gpu0-fn1\"/>\n"
                        + "\t\t\t<address type=\"pci\" domain=\"0x0000\" bus=\"0x00\" slot=\"0x12\" function=\"0x1\"/>\n")
                .contains("<alias name=\"ua-gpu-v0\"/>", "<alias name=\"ua-hostdevice-extra\"/>");
        LibvirtTools.assertDomainAccepted(merged);
    }

    @Test
    void aMismatchPrintsEveryProblemAndNothingOnStdout() throws IOException {
        Path env = file("env", "PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4=0000:3b:00.0\n");
        assertThat(run("hostdev-xml", "--env-file", env.toString(), "--vmi", vmiFile().toString())).isEqualTo(1);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).isEqualTo("""
                gpus[1] 'v0' (nvidia.com/GRID_T4-1Q): neither PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q nor MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q is set in the environment
                hostDevices[0] 'extra' (nvidia.com/TU104GL_TESLA_T4): PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4 lists 1 device(s) ('0000:3b:00.0'), fewer than the VMI entries naming nvidia.com/TU104GL_TESLA_T4
                """);
    }

    @Test
    void aHostileDomainIsRefusedNamingTheFile() throws IOException {
        Path domain = file("evil.xml", "<!DOCTYPE domain [<!ENTITY a \"b\">]><domain><name>&a;</name></domain>");
        assertThat(run("hostdev-xml", "--env-file", envFile().toString(), "--domain", domain.toString())).isEqualTo(1);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).isEqualTo(domain + ": domain XML has a DOCTYPE: DTDs and entity declarations are refused, nothing in them is expanded\n");
    }

    @Test
    void aVmiThatCannotBeReadIsNamed() throws IOException {
        Path vmi = file("vmi.json", "{\"spec\":{\"domain\":{\"devices\":{\"gpus\":{}}}}}");
        assertThat(run("hostdev-xml", "--env-file", envFile().toString(), "--vmi", vmi.toString())).isEqualTo(1);
        assertThat(err.toString()).isEqualTo(vmi + ": VMI spec.domain.devices.gpus must be a list\n");
    }

    @Test
    void notesGoToStderrWhileTheXmlGoesToStdout() throws IOException {
        Path env = file("env", "PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4=0000:3b:00.0\n");
        assertThat(run("hostdev-xml", "--env-file", env.toString(), "--companions")).isZero();
        assertThat(out.toString()).contains("<alias name=\"ua-hostdevice-nvidia_com_tu104gl_tesla_t4-0\"/>");
        assertThat(err.toString()).isEqualTo("note: VFIO_DP_COMPANIONS_NVIDIA_COM_TU104GL_TESLA_T4 is not set: "
                + "no companion functions known for the devices of PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4\n");
        LibvirtTools.assertHostdevsAccepted(out.toString());
    }

    @Test
    void theDomainFileIsReadAsBytesSoItsTextComesBackExactly() throws IOException {
        String domain = "<?xml version='1.0' encoding='UTF-8'?>\n<!-- caf\u00e9 -->\n<domain type='kvm'>\n  <name>t</name>\n  <memory>1048576</memory>\n"
                + "  <os><type arch='x86_64' machine='q35'>hvm</type></os>\n  <devices>\n  </devices>\n</domain>\n";
        Path file = Files.write(dir.resolve("d.xml"), domain.getBytes(StandardCharsets.UTF_8));
        Path env = file("env", "HOME=/root\n");
        assertThat(run("hostdev-xml", "--env-file", env.toString(), "--domain", file.toString())).isZero();
        assertThat(out.toString()).isEqualTo(domain);
        LibvirtTools.assertDomainAccepted(out.toString());
    }

    Path displayVmi() throws IOException {
        return file("display.yaml", """
                metadata:
                  name: vm1
                spec:
                  domain:
                    devices:
                      gpus:
                      - name: gpu0
                        deviceName: nvidia.com/TU104GL_TESLA_T4
                        virtualGPUOptions:
                          display:
                            enabled: true
                """);
    }

    static final String GPU0_WITH = """
            <hostdev mode="subsystem" type="pci" managed="no" %s>
              <source>
                <address domain="0x0000" bus="0x3b" slot="0x00" function="0x0"/>
              </source>
              <alias name="ua-gpu-gpu0"/>
            </hostdev>
            """;

    /** kubevirt/kubevirt hostdev.go isRamFBSet at v1.9.0 (79d34c1762): no ramfb while ramFB is absent. */
    @Test
    void byDefaultAPciDisplayGetsNoRamfbAsKubeVirt19WritesIt() throws IOException {
        assertThat(run("hostdev-xml", "--env-file", envFile().toString(), "--vmi", displayVmi().toString())).isZero();
        assertThat(out.toString()).isEqualTo(GPU0_WITH.formatted("display=\"on\""));
    }

    /** The same since ac2ad7de6a "Default ramfb to enabled when display is set" (main, the coming 1.10). */
    @Test
    void version110GivesThePciDisplayRamfbAsMainWritesIt() throws IOException {
        assertThat(run("hostdev-xml", "--kubevirt-version", "1.10", "--env-file", envFile().toString(), "--vmi", displayVmi().toString()))
                .isZero();
        assertThat(out.toString()).isEqualTo(GPU0_WITH.formatted("display=\"on\" ramfb=\"on\""));
    }

    @Test
    void aVersionOfAnotherReleaseIsRefusedNamingTheKnownOnes() throws IOException {
        assertThat(run("hostdev-xml", "--kubevirt-version", "1.8", "--env-file", envFile().toString())).isEqualTo(2);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).startsWith("Invalid value for option '--kubevirt-version': KubeVirt 1.8 is not a release whose"
                + " virt-launcher this helper imitates; it knows 1.9 (v1.9.x) and 1.10 (main after v1.9.0)\n");
    }

    @Test
    void anMdevWhoseRamFbIsPresentWithEnabledUnsetIsWrittenAndWarnedAbout() throws IOException {
        Path vmi = file("mdev.yaml", """
                metadata:
                  name: vm1
                spec:
                  domain:
                    devices:
                      gpus:
                      - name: v0
                        deviceName: nvidia.com/GRID_T4-1Q
                        virtualGPUOptions:
                          display:
                            ramFB: {}
                """);
        assertThat(run("hostdev-xml", "--env-file", envFile().toString(), "--vmi", vmi.toString())).isZero();
        assertThat(out.toString()).contains("type=\"mdev\" model=\"vfio-pci\" display=\"on\" ramfb=\"on\"");
        assertThat(err.toString()).startsWith("warning: VMI vm1: spec.domain.devices.gpus[0].virtualGPUOptions.display.ramFB is {} (enabled"
                + " unset) on an mdev vGPU; virt-launcher (v1.9.0 and main) would crash on it");
    }
}
