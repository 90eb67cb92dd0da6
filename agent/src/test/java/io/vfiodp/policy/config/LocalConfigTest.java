package io.vfiodp.policy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.policy.config.ConfigSource.LayoutSetting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code --config} file as every pass reads it: once, for both blocks, its layout resolved for the node's labels. */
class LocalConfigTest {

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

    private ConfigSource.Current read(String text, Map<String, String> labels) throws IOException {
        Path file = Files.writeString(tmp.resolve("c.yaml"), text);
        return new LocalConfig(Optional.of(file), () -> labels).current();
    }

    private String origin() {
        return "--config " + tmp.resolve("c.yaml");
    }

    @Test
    void theGlobalListAppliesToANodeNoSelectorMatches() throws IOException {
        assertThat(read(CONFIG, Map.of("gpu-profile", "small")).layout())
                .isEqualTo(new LayoutSetting.Desired(new DesiredMdevTypes(List.of("GRID_T4-1Q"), true, "mediatedDeviceTypes"), origin()));
    }

    @Test
    void matchingNodeSelectorsReplaceTheGlobalListWithTheirUnion() throws IOException {
        assertThat(read(CONFIG, Map.of("gpu-profile", "big", "zone", "lab")).layout())
                .isEqualTo(new LayoutSetting.Desired(new DesiredMdevTypes(List.of("GRID_T4-4Q", "GRID_T4-2Q"), true,
                        "nodeMediatedDeviceTypes[0,1]"), origin()));
    }

    @Test
    void theSameReadingGivesThePermittedDevices() throws IOException {
        ConfigSource.Current current = read(CONFIG, Map.of());

        assertThat(current.origin()).isEqualTo(origin());
        assertThat(current.permitted()).contains(new PermittedHostDevices(List.of(), List.of()));
    }

    @Test
    void aFileWithoutTheBlockConfiguresNoLayout() throws IOException {
        assertThat(read("permittedHostDevices: {}\n", Map.of()).layout()).isEqualTo(new LayoutSetting.None());
    }

    @Test
    void aFileWithOnlyALayoutLeavesTheNamesToTheDefaultPolicy() throws IOException {
        ConfigSource.Current current = read("mediatedDevicesConfiguration:\n  mediatedDeviceTypes: [GRID_T4-1Q]\n", Map.of());

        assertThat(current.permitted()).isEmpty();
        assertThat(current.layout()).isInstanceOf(LayoutSetting.Desired.class);
    }

    @Test
    void aMalformedBlockIsAnErrorNamingTheFileAndBlock() throws IOException {
        Path file = Files.writeString(tmp.resolve("c.yaml"), "mediatedDevicesConfiguration:\n  mediatedDeviceTypes: {a: b}\n");

        assertThatThrownBy(() -> LocalConfig.of(Optional.of(file)).current())
                .hasMessage(file + " line 2, column 24, field mediatedDevicesConfiguration.mediatedDeviceTypes: expected a list, found a mapping");
    }

    @Test
    void theLayoutAloneOfABrokenFileIsUnreadableInsteadOfAnError() throws IOException {
        Path file = Files.writeString(tmp.resolve("c.yaml"), "mediatedDevicesConfiguration:\n  mediatedDeviceTypes: {a: b}\n");

        assertThat(LocalConfig.of(Optional.of(file)).layout()).isEqualTo(new LayoutSetting.Unreadable(
                file + " line 2, column 24, field mediatedDevicesConfiguration.mediatedDeviceTypes: expected a list, found a mapping"));
    }

    @Test
    void withoutAFileItIsTheDefaultPolicyWithoutALayout() {
        assertThat(LocalConfig.of(Optional.empty()).current()).isEqualTo(ConfigSource.Current.DEFAULT_POLICY);
    }
}
