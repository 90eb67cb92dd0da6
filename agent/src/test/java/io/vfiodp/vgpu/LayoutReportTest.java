package io.vfiodp.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.policy.config.DesiredMdevTypes;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class LayoutReportTest {

    private static final Path NODE = Path.of("src/test/resources/sysfs-fixtures/t4-vgpu");
    private static final HostSnapshot T4 = new SysfsScanner(NODE.resolve("sys"), NODE.resolve("dev")).scan();

    @Test
    void theTableShowsDesiredVersusActualPerGpu() {
        assertThat(LayoutReport.table(T4, new DesiredMdevTypes(List.of("GRID_T4-4Q"), true, "mediatedDeviceTypes"))).isEqualTo("""
                vGPU layout: desired GRID_T4-4Q from mediatedDeviceTypes
                GPU            KIND   DESIRED                  ACTUAL
                0000:3b:00.0   mdev   GRID T4-4Q               3 x GRID T4-1Q
                0000:d9:00.0   mdev   GRID T4-4Q               2 x GRID T4-2Q
                """);
    }

}
