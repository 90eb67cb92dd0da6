package io.vfiodp.vgpu;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.SysfsScanner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class LayoutReportTest {

    private static final Path NODE = Path.of("src/test/resources/sysfs-fixtures/t4-vgpu");
    private static final HostSnapshot T4 = new SysfsScanner(NODE.resolve("sys"), NODE.resolve("dev")).scan();

    @TempDir Path tmp;

    @Test
    void inventoryShowsDesiredVersusActualWhenALayoutIsConfigured() throws IOException {
        Path config = Files.writeString(tmp.resolve("c.yaml"), "mediatedDevicesConfiguration:\n  mediatedDeviceTypes: [GRID_T4-4Q]\n");

        assertThat(LayoutReport.inventorySection(T4, Optional.of(config), Map.of())).contains("""
                vGPU layout: desired GRID_T4-4Q from mediatedDeviceTypes
                GPU            KIND   DESIRED                  ACTUAL
                0000:3b:00.0   mdev   GRID T4-4Q               3 x GRID T4-1Q
                0000:d9:00.0   mdev   GRID T4-4Q               2 x GRID T4-2Q
                """);
    }

    @Test
    void inventoryHasNoLayoutSectionWithoutALayout() throws IOException {
        Path config = Files.writeString(tmp.resolve("c.yaml"), "permittedHostDevices: {}\n");

        assertThat(LayoutReport.inventorySection(T4, Optional.of(config), Map.of())).isEmpty();
        assertThat(LayoutReport.inventorySection(T4, Optional.empty(), Map.of())).isEmpty();
    }
}
