package io.vfiodp.policy.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** KubeVirt's GetDesiredMDEVTypes, case by case. */
class MdevTypesForNodeTest {

    private static final Map<String, String> T4_NODE = Map.of("gpu", "t4", "zone", "a");

    /** The block as the --config file gives it (the KubeVirt CR's converts to the same record). */
    private static MediatedDevicesConfig conf(String yaml) {
        String block = "mediatedDevicesConfiguration:\n" + yaml.lines().map(l -> "  " + l + "\n").collect(java.util.stream.Collectors.joining());
        try {
            return ConfigFile.parse("c.yaml", block).mediatedDevicesConfiguration().orElseThrow();
        } catch (InvalidConfigException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Test
    void noConfigurationMeansNoTypes() {
        assertThat(MdevTypesForNode.resolve(null, T4_NODE)).isEqualTo(DesiredMdevTypes.NONE);
    }

    @Test
    void globalListAppliesWithoutNodeEntries() {
        assertThat(MdevTypesForNode.resolve(conf("mediatedDeviceTypes: [nvidia-222, nvidia-223]"), T4_NODE))
                .isEqualTo(new DesiredMdevTypes(List.of("nvidia-222", "nvidia-223"), true, "mediatedDeviceTypes"));
    }

    @Test
    void deprecatedGlobalSpellingIsReadWhenTheNewOneIsEmpty() {
        assertThat(MdevTypesForNode.resolve(conf("mediatedDeviceTypes: []\nmediatedDevicesTypes: [nvidia-231]"), T4_NODE))
                .isEqualTo(new DesiredMdevTypes(List.of("nvidia-231"), true, "mediatedDevicesTypes (deprecated)"));
    }

    @Test
    void newGlobalSpellingWinsOverTheDeprecatedOne() {
        assertThat(MdevTypesForNode.resolve(conf("mediatedDeviceTypes: [nvidia-222]\nmediatedDevicesTypes: [nvidia-231]"), T4_NODE).types())
                .containsExactly("nvidia-222");
    }

    @Test
    void matchingNodeEntryReplacesTheGlobalList() {
        MediatedDevicesConfig c = conf("""
                mediatedDeviceTypes: [nvidia-222]
                nodeMediatedDeviceTypes:
                - nodeSelector: {gpu: t4}
                  mediatedDeviceTypes: [nvidia-230]
                """);

        assertThat(MdevTypesForNode.resolve(c, T4_NODE))
                .isEqualTo(new DesiredMdevTypes(List.of("nvidia-230"), true, "nodeMediatedDeviceTypes[0]"));
    }

    @Test
    void allMatchingNodeEntriesAreUnited() {
        MediatedDevicesConfig c = conf("""
                mediatedDeviceTypes: [nvidia-222]
                nodeMediatedDeviceTypes:
                - nodeSelector: {gpu: t4}
                  mediatedDeviceTypes: [nvidia-230, nvidia-231]
                - nodeSelector: {gpu: a10}
                  mediatedDeviceTypes: [nvidia-500]
                - nodeSelector: {zone: a}
                  mediatedDeviceTypes: [nvidia-231, nvidia-232]
                """);

        assertThat(MdevTypesForNode.resolve(c, T4_NODE))
                .isEqualTo(new DesiredMdevTypes(List.of("nvidia-230", "nvidia-231", "nvidia-232"), true, "nodeMediatedDeviceTypes[0,2]"));
    }

    @Test
    void everySelectorLabelMustMatch() {
        MediatedDevicesConfig c = conf("""
                mediatedDeviceTypes: [nvidia-222]
                nodeMediatedDeviceTypes:
                - nodeSelector: {gpu: t4, zone: b}
                  mediatedDeviceTypes: [nvidia-230]
                """);

        assertThat(MdevTypesForNode.resolve(c, T4_NODE).types()).containsExactly("nvidia-222");
    }

    @Test
    void emptyNodeSelectorMatchesEveryNode() {
        MediatedDevicesConfig c = conf("""
                mediatedDeviceTypes: [nvidia-222]
                nodeMediatedDeviceTypes:
                - nodeSelector: {}
                  mediatedDeviceTypes: [nvidia-230]
                """);

        assertThat(MdevTypesForNode.resolve(c, Map.of()).types()).containsExactly("nvidia-230");
    }

    @Test
    void nodeEntryWithDeprecatedSpellingCounts() {
        MediatedDevicesConfig c = conf("""
                nodeMediatedDeviceTypes:
                - nodeSelector: {gpu: t4}
                  mediatedDevicesTypes: [nvidia-233]
                """);

        assertThat(MdevTypesForNode.resolve(c, T4_NODE).types()).containsExactly("nvidia-233");
    }

    @Test
    void noMatchingNodeEntryFallsBackToTheGlobalList() {
        MediatedDevicesConfig c = conf("""
                mediatedDevicesTypes: [nvidia-222]
                nodeMediatedDeviceTypes:
                - nodeSelector: {gpu: a10}
                  mediatedDeviceTypes: [nvidia-500]
                """);

        assertThat(MdevTypesForNode.resolve(c, T4_NODE))
                .isEqualTo(new DesiredMdevTypes(List.of("nvidia-222"), true, "mediatedDevicesTypes (deprecated)"));
    }

    @Test
    void enabledFalseIsCarried() {
        assertThat(MdevTypesForNode.resolve(conf("enabled: false\nmediatedDeviceTypes: [nvidia-222]"), T4_NODE))
                .isEqualTo(new DesiredMdevTypes(List.of("nvidia-222"), false, "mediatedDeviceTypes"));
    }

    @Test
    void typeNamesWithSpacesAreKeptAsWritten() {
        assertThat(MdevTypesForNode.resolve(conf("mediatedDeviceTypes: ['GRID T4-1Q', nvidia-222]"), T4_NODE).types())
                .containsExactly("GRID T4-1Q", "nvidia-222");
    }
}
