package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class LibvirtToolsTest {

    @Test
    void aMissingToolFailsTheTestSayingWhatToInstall() {
        assertThatThrownBy(() -> LibvirtTools.run(List.of("virt-xml-validate-not-installed", "x.xml", "domain"), "<domain/>"))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("virt-xml-validate-not-installed is not available (")
                .hasMessageEndingWith("): install libvirt's client tools: apt-get install libvirt-clients");
    }

    @Test
    void xmlLibvirtRejectsFailsTheTestWithLibvirtsReason() {
        assertThatThrownBy(() -> LibvirtTools.assertHostdevsAccepted("<hostdev mode='subsystem' type='pci'/>"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("libvirt rejects the XML: virt-xml-validate")
                .hasMessageContaining("Relax-NG validity error");
    }
}
