package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.policy.ResourceName;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SocketNamesTest {

    private static final Path KUBELET_DIR = Path.of("/var/lib/kubelet/device-plugins");

    @Test
    void nameIsPrefixedResourceNameWithSlashReplaced() {
        assertThat(SocketNames.forResource(KUBELET_DIR, ResourceName.of("nvidia.com/TU104GL_TESLA_T4")))
                .isEqualTo("vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock");
    }

    @Test
    void namesNeverStartWithTheKubevirtPrefix() {
        assertThat(SocketNames.forResource(KUBELET_DIR, ResourceName.of("kubevirt.io/gpu"))).isEqualTo("vfio-dp-kubevirt.io_gpu.sock");
    }

    @Test
    void tooLongPathIsCutAndTaggedWithAStableHashWithin107Bytes() {
        ResourceName longName = ResourceName.of("devices.gpu.example.com/" + "A".repeat(63));

        String name = SocketNames.forResource(KUBELET_DIR, longName);

        assertThat((KUBELET_DIR + "/" + name).getBytes(StandardCharsets.UTF_8)).hasSize(107);
        assertThat(name).startsWith("vfio-dp-devices.gpu.example.com_AAAA").endsWith(".sock").matches(".*-[0-9a-f]{10}\\.sock");
        assertThat(SocketNames.forResource(KUBELET_DIR, longName)).isEqualTo(name);
    }

    @Test
    void longNamesThatShareAPrefixStayDistinct() {
        String a = SocketNames.forResource(KUBELET_DIR, ResourceName.of("devices.gpu.example.com/" + "A".repeat(62) + "1"));
        String b = SocketNames.forResource(KUBELET_DIR, ResourceName.of("devices.gpu.example.com/" + "A".repeat(62) + "2"));

        assertThat(a).isNotEqualTo(b);
    }

    @Test
    void directoryTooLongForAnySocketIsRefusedNamingIt() {
        Path deep = Path.of("/" + "d".repeat(100));

        assertThatThrownBy(() -> SocketNames.forResource(deep, ResourceName.of("nvidia.com/X")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("device-plugin dir " + deep + " is too long: a socket path in it cannot stay within 107 bytes"
                        + " (the directory's path has 101 bytes; at most 81 leave room for the socket of every resource name)");
    }

    @Test
    void checkRoomRefusesExactlyTheDirectoriesForResourceRefuses() {
        for (int length = 60; length <= 100; length++) {
            Path dir = Path.of("/" + "d".repeat(length - 1));
            for (ResourceName resource : List.of(SocketNames.LONGEST_RESOURCE, ResourceName.of("nvidia.com/X"))) {
                Optional<String> named = refusal(() -> SocketNames.forResource(dir, resource));
                Optional<String> checked = refusal(() -> SocketNames.checkRoom(dir, resource));

                assertThat(checked).as(length + "-byte dir, " + resource).isEqualTo(named);
                // 81 bytes: the longest resource's name cut to one character beside its tag, and a short name whole
                assertThat(named.isPresent()).as(length + "-byte dir, " + resource).isEqualTo(length > 81);
            }
        }
    }

    private static Optional<String> refusal(Runnable call) {
        try {
            call.run();
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
    }
}
