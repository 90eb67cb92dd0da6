package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeAtFixedPathsTest {

    @TempDir
    Path root;

    @Test
    void closingRemovesOnlyWhatWasCreated() throws IOException {
        Files.createDirectories(root.resolve("dev"));
        Path vfio = root.resolve("dev/vfio");
        Path plugins = root.resolve("var/lib/kubelet/device-plugins");
        Path pciIds = root.resolve("usr/pci.ids");
        Files.createDirectories(pciIds.getParent());

        try (NodeAtFixedPaths.MountPoints created = NodeAtFixedPaths.createMountPoints(List.of(vfio, plugins), pciIds)) {
            assertThat(created.created()).containsExactly(vfio, root.resolve("var"), root.resolve("var/lib"), root.resolve("var/lib/kubelet"),
                    plugins, pciIds);
            assertThat(vfio).isDirectory();
            assertThat(pciIds).isRegularFile();
        }

        assertThat(root.resolve("dev")).isDirectory();
        assertThat(root.resolve("usr")).isDirectory();
        assertThat(vfio).doesNotExist();
        assertThat(root.resolve("var")).doesNotExist();
        assertThat(pciIds).doesNotExist();
    }

    @Test
    void whatWasThereBeforeAndWhatOthersPutThereStays() throws IOException {
        Path vfio = Files.createDirectories(root.resolve("dev/vfio"));
        Path pciIds = Files.writeString(Files.createDirectories(root.resolve("usr")).resolve("pci.ids"), "8086  Intel Corporation\n");
        Path plugins = root.resolve("plugins");

        try (NodeAtFixedPaths.MountPoints created = NodeAtFixedPaths.createMountPoints(List.of(vfio, plugins), pciIds)) {
            assertThat(created.created()).containsExactly(plugins);
            Files.writeString(plugins.resolve("kubelet.sock"), "");
        }

        assertThat(vfio).isDirectory();
        assertThat(pciIds).hasContent("8086  Intel Corporation");
        assertThat(plugins.resolve("kubelet.sock")).exists();
    }

    @Test
    void aFileWhereADirectoryIsBoundIsRefusedAndWhatWasCreatedIsRemoved() throws IOException {
        Path plugins = root.resolve("plugins");
        Path vfio = Files.writeString(Files.createDirectories(root.resolve("dev")).resolve("vfio"), "");

        assertThatThrownBy(() -> NodeAtFixedPaths.createMountPoints(List.of(plugins, vfio), root.resolve("pci.ids")))
                .isInstanceOf(FileAlreadyExistsException.class).hasMessageContaining(vfio.toString());

        assertThat(plugins).doesNotExist();
        assertThat(vfio).isRegularFile();
    }
}
