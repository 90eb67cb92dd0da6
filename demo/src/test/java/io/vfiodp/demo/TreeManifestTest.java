package io.vfiodp.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TreeManifestTest {

    @TempDir Path tmp;

    @Test
    void manifestRecordsDirectoriesFilesAndRelativeLinksSortedByPath() throws IOException {
        Path root = tmp.resolve("tree");
        Files.createDirectories(root.resolve("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"));
        Files.createDirectories(root.resolve("sys/bus/pci/devices"));
        Files.createDirectories(root.resolve("dev/vfio"));
        Files.writeString(root.resolve("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor"), "0x10de\n");
        Files.createSymbolicLink(root.resolve("sys/bus/pci/devices/0000:01:00.0"), Path.of("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0"));

        assertThat(TreeManifest.write(root)).isEqualTo("""
                # vfio-device-plugin tree manifest v1
                d\tdev
                d\tdev/vfio
                d\tsys
                d\tsys/bus
                d\tsys/bus/pci
                d\tsys/bus/pci/devices
                l\tsys/bus/pci/devices/0000:01:00.0\t../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0
                d\tsys/devices
                d\tsys/devices/pci0000:00
                d\tsys/devices/pci0000:00/0000:00:01.0
                d\tsys/devices/pci0000:00/0000:00:01.0/0000:01:00.0
                f\tsys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor\t0x10de\\n
                """);
    }

    @Test
    void materialisedTreeHasTheSameManifestIncludingBinaryContent() throws IOException {
        Path root = tmp.resolve("tree");
        Files.createDirectories(root.resolve("a b/empty"));
        Files.write(root.resolve("a b/config"), new byte[] {0, 1, (byte) 0xde, '\\', '\t', '\n', 'x'});
        Files.createSymbolicLink(root.resolve("link"), Path.of("a b/config"));

        String manifest = TreeManifest.write(root);
        Path copy = tmp.resolve("copy");
        TreeManifest.materialise(manifest, copy);

        assertThat(TreeManifest.write(copy)).isEqualTo(manifest);
        assertThat(Files.readAllBytes(copy.resolve("a b/config"))).containsExactly(0, 1, 0xde, '\\', '\t', '\n', 'x');
        assertThat(Files.readSymbolicLink(copy.resolve("link"))).isEqualTo(Path.of("a b/config"));
    }

    @Test
    void pathEscapingTheTargetIsRefusedNamingTheLine() {
        assertThatThrownBy(() -> TreeManifest.materialise("d\tok\nf\t../evil\tx\n", tmp.resolve("t")))
                .isInstanceOf(IOException.class)
                .hasMessage("manifest line 2: path '../evil' is not inside the tree");
    }

    @Test
    void absoluteLinkTargetIsRefused() {
        assertThatThrownBy(() -> TreeManifest.materialise("l\tetc\t/etc\n", tmp.resolve("t")))
                .isInstanceOf(IOException.class)
                .hasMessage("manifest line 1: link etc points outside the tree: /etc");
    }

    @Test
    void unknownEntryTypeIsRefused() {
        assertThatThrownBy(() -> TreeManifest.materialise("p\tfifo\n", tmp.resolve("t")))
                .isInstanceOf(IOException.class)
                .hasMessage("manifest line 1: unknown entry type 'p' (expected d, f or l)");
    }
}
