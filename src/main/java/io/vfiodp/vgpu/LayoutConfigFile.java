package io.vfiodp.vgpu;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;
import io.vfiodp.kubevirt.DesiredMdevTypes;
import io.vfiodp.kubevirt.MdevTypesForNode;
import io.vfiodp.kubevirt.model.MediatedDevicesConfiguration;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code mediatedDevicesConfiguration:} block of the {@code --config} file, in the KubeVirt
 * CR's schema, resolved for this node's labels by KubeVirt's own rules
 * ({@link MdevTypesForNode}). Read on every call, like the rest of the file.
 */
public final class LayoutConfigFile {

    private static final ObjectMapper YAML = YAMLMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private LayoutConfigFile() {}

    /** Empty when the file has no {@code mediatedDevicesConfiguration}: then no layout is configured. */
    public static Optional<DesiredMdevTypes> read(Path file, Map<String, String> nodeLabels) throws IOException {
        JsonNode root;
        try {
            root = YAML.readTree(file.toFile());
        } catch (JacksonException e) {
            throw new IOException("config file " + file + ": " + e.getMessage(), e);
        }
        JsonNode block = root == null ? null : root.get("mediatedDevicesConfiguration");
        if (block == null || block.isNull()) return Optional.empty();
        MediatedDevicesConfiguration conf;
        try {
            conf = YAML.treeToValue(block, MediatedDevicesConfiguration.class);
        } catch (JacksonException e) {
            throw new IOException("config file " + file + ": mediatedDevicesConfiguration: " + e.getOriginalMessage(), e);
        }
        return Optional.of(MdevTypesForNode.resolve(conf, nodeLabels));
    }
}
