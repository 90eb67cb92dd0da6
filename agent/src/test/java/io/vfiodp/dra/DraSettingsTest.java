package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DraSettingsTest {

    @Test
    void defaultsAreTheKubeletsDirectories() {
        DraSettings s = DraSettings.defaults("vfio-device-plugin.io", "node-a");
        assertThat(s.registrationSocket()).isEqualTo(Path.of("/var/lib/kubelet/plugins_registry/vfio-device-plugin.io-reg.sock"));
        assertThat(s.draSocket()).isEqualTo(Path.of("/var/lib/kubelet/plugins/vfio-device-plugin.io/dra.sock"));
        assertThat(s.cdiDir()).isEqualTo(Path.of("/var/run/cdi"));
    }

    @Test
    void theDriverNameMustBeALowerCaseDnsSubdomainOfAtMost63Characters() {
        assertThatThrownBy(() -> DraSettings.defaults("GPU.example.com", "n")).hasMessage("DRA driver name 'GPU.example.com' is not a lower-case DNS subdomain of at most 63 characters");
        assertThatThrownBy(() -> DraSettings.defaults("a".repeat(61) + ".io", "n")).hasMessageContaining("at most 63 characters");
    }

    @Test
    void theNodeNameMustBeADnsSubdomain() {
        assertThatThrownBy(() -> DraSettings.defaults("d.io", "Node_1")).hasMessage("node name 'Node_1' is not a DNS subdomain: it names this node's DRA pool");
    }

    @Test
    void aSocketPathTooLongForAUnixSocketIsRefused() {
        Path deep = Path.of("/" + "d".repeat(100));
        assertThatThrownBy(() -> DraSettings.defaults("d.io", "n").withDirs(deep, Path.of("/p"), Path.of("/c")))
                .hasMessage("DRA socket path " + deep.resolve("d.io-reg.sock") + " is 115 bytes long; unix sockets allow 107: use a shorter directory");
    }
}
