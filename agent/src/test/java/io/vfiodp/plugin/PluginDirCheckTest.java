package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.policy.ResourceName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PluginRuntime#checkPluginDir}: a device-plugin directory is refused at start when the
 * longest resource name's socket would not fit in it, not only when a short one would not.
 */
class PluginDirCheckTest {

    @TempDir Path temp;

    /** A directory under {@code temp} whose path has exactly {@code bytes} bytes. */
    private Path dirOf(int bytes) throws IOException {
        Path dir = temp.resolve("d".repeat(bytes - temp.toString().length() - 1));
        assertThat(dir.toString().getBytes(StandardCharsets.UTF_8)).hasSize(bytes);
        return Files.createDirectories(dir);
    }

    @Test
    void theLimitIsWhatTheShortestCutSocketNameLeaves() {
        // vfio-dp- + one character + -<10 hex> + .sock, after the directory and its /
        assertThat(SocketNames.MAX_DIR_BYTES).isEqualTo(107 - 1 - "vfio-dp-a-0123456789.sock".length()).isEqualTo(81);
        assertThat(SocketNames.LONGEST_RESOURCE.value()).hasSize(ResourceName.MAX_PREFIX_LENGTH + 1 + ResourceName.MAX_NAME_LENGTH)
                .hasSize(244 + 1 + 63);
    }

    @Test
    void aDirectoryWhereAShortNameFitsButALongResourcesSocketDoesNotIsRefusedNamingItAndTheLimit() throws IOException {
        Path dir = dirOf(SocketNames.MAX_DIR_BYTES + 1);
        assertThat(SocketNames.forResource(dir, ResourceName.of("x.io/x"))).isEqualTo("vfio-dp-x.io_x.sock");
        assertThatThrownBy(() -> SocketNames.forResource(dir, ResourceName.of("devices.gpu.example.com/" + "A".repeat(63))))
                .isInstanceOf(IllegalArgumentException.class);

        assertThatThrownBy(() -> PluginRuntime.checkPluginDir(dir)).isInstanceOf(IOException.class)
                .hasMessage("device-plugin dir " + dir + " is too long: a socket path in it cannot stay within 107 bytes"
                        + " (the directory's path has 82 bytes; at most 81 leave room for the socket of every resource name)");
    }

    @Test
    void aDirectoryAtTheLimitIsAcceptedAndTheLongestResourcesSocketFillsThePathExactly() throws IOException {
        Path dir = dirOf(SocketNames.MAX_DIR_BYTES);

        assertThatCode(() -> PluginRuntime.checkPluginDir(dir)).doesNotThrowAnyException();
        String longest = SocketNames.forResource(dir, SocketNames.LONGEST_RESOURCE);
        assertThat(dir.resolve(longest).toString().getBytes(StandardCharsets.UTF_8)).hasSize(107);
        assertThat(longest).matches("vfio-dp-a-[0-9a-f]{10}\\.sock");
    }

    @Test
    void aMissingDirectoryIsRefusedNamingIt() {
        Path missing = temp.resolve("device-plugins");

        assertThatThrownBy(() -> PluginRuntime.checkPluginDir(missing)).isInstanceOf(IOException.class)
                .hasMessage("device-plugin dir " + missing + " does not exist (mount the kubelet's /var/lib/kubelet/device-plugins)");
    }
}
