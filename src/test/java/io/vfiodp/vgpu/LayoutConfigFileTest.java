package io.vfiodp.vgpu;

import io.vfiodp.kube.kubevirt.DesiredMdevTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LayoutConfigFileTest {

    @TempDir Path tmp;

    private static final String CONFIG = """
            permittedHostDevices:
              mediatedDevices: []
            mediatedDevicesConfiguration:
              mediatedDeviceTypes: [GRID_T4-1Q]
              nodeMediatedDeviceTypes:
                - nodeSelector: {gpu-profile: big}
                  mediatedDeviceTypes: [GRID_T4-4Q]
                - nodeSelector: {zone: lab}
                  mediatedDevicesTypes: [GRID_T4-2Q]
            """;

    @Test
    void theGlobalListAppliesToANodeNoSelectorMatches() throws IOException {
        Path file = Files.writeString(tmp.resolve("c.yaml"), CONFIG);

        assertThat(LayoutConfigFile.read(file, Map.of("gpu-profile", "small")))
                .contains(new DesiredMdevTypes(List.of("GRID_T4-1Q"), true, "mediatedDeviceTypes"));
    }

    @Test
    void matchingNodeSelectorsReplaceTheGlobalListWithTheirUnion() throws IOException {
        Path file = Files.writeString(tmp.resolve("c.yaml"), CONFIG);

        assertThat(LayoutConfigFile.read(file, Map.of("gpu-profile", "big", "zone", "lab")))
                .contains(new DesiredMdevTypes(List.of("GRID_T4-4Q", "GRID_T4-2Q"), true, "nodeMediatedDeviceTypes[0,1]"));
    }

    @Test
    void aFileWithoutTheBlockConfiguresNoLayout() throws IOException {
        Path file = Files.writeString(tmp.resolve("c.yaml"), "permittedHostDevices: {}\n");

        assertThat(LayoutConfigFile.read(file, Map.of())).isEqualTo(Optional.empty());
    }

    @Test
    void aMalformedBlockIsAnErrorNamingTheFileAndBlock() throws IOException {
        Path file = Files.writeString(tmp.resolve("c.yaml"), "mediatedDevicesConfiguration:\n  mediatedDeviceTypes: {a: b}\n");

        assertThatThrownBy(() -> LayoutConfigFile.read(file, Map.of()))
                .hasMessageStartingWith("config file " + file + ": mediatedDevicesConfiguration: ");
    }
}
