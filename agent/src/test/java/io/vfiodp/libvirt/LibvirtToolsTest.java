package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LibvirtToolsTest {

    @Test
    void aMissingToolFailsTheTestSayingWhatToInstall() {
        assertThatThrownBy(() -> LibvirtTools.run(List.of("virt-xml-validate-not-installed", "x.xml", "domain"), "<domain/>"))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("virt-xml-validate-not-installed is not available (")
                .hasMessageEndingWith("): install libvirt's client tools: apt-get install libvirt-clients");
    }

    /** virt-xml-validate is a shell script around xmllint, which libvirt-clients does not depend on. */
    @Test
    void aMissingXmllintFailsTheTestSayingWhatToInstall() {
        assertThatThrownBy(() -> LibvirtTools.run(List.of("sh", "-c", "echo '/usr/bin/virt-xml-validate: 142: xmllint: not found' >&2; exit 127"),
                "<domain/>"))
                .isInstanceOf(AssertionError.class)
                .hasMessage("sh runs xmllint, which is not installed: apt-get install libxml2-utils (.ci/run installs it)");
    }

    @Test
    void xmlLibvirtRejectsFailsTheTestWithLibvirtsReason() {
        assertThatThrownBy(() -> LibvirtTools.assertHostdevsAccepted("<hostdev mode='subsystem' type='pci'/>"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("libvirt rejects the XML: virt-xml-validate")
                .hasMessageContaining("Relax-NG validity error");
    }

    /**
     * The note docs/launcher-helper.md makes: a libvirt whose schema does not know display/ramfb on a PCI
     * hostdev (9.0) still defines the domain but drops both, so the guest gets no display; one
     * that knows them keeps them.
     */
    @Test
    void aLibvirtThatDoesNotKnowPciHostdevDisplayDropsItAndOneThatKnowsItKeepsIt() throws Exception {
        Path file = Files.createTempFile("vfiodp-pci-display-", ".xml");
        try {
            Files.writeString(file, LibvirtTools.domainWith("<hostdev mode='subsystem' type='pci' managed='no' display='on' ramfb='on'>"
                    + "<source><address domain='0x0000' bus='0x41' slot='0x00' function='0x4'/></source></hostdev>\n"), StandardCharsets.UTF_8);
            Process p = new ProcessBuilder("virsh", "-q", "-c", "test:///default", "define " + file + "; dumpxml t")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(out).isZero();
            String hostdev = out.substring(out.indexOf("<hostdev "), out.indexOf('>', out.indexOf("<hostdev ")) + 1);
            if (LibvirtTools.knowsPciHostdevDisplay()) {
                assertThat(hostdev).contains("display='on'", "ramfb='on'");
            } else {
                assertThat(hostdev).isEqualTo("<hostdev mode='subsystem' type='pci' managed='no'>");
            }
        } finally {
            Files.delete(file);
        }
    }
}
