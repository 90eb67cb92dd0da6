package io.vfiodp.policy.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The {@code --config} file, read again for every pass (an edited ConfigMap counts from the next
 * pass), or the default policy when there is none. Its {@code nodeMediatedDeviceTypes} are matched
 * against this node's labels as they are at that pass.
 */
public final class LocalConfig implements ConfigSource {

    private final Optional<Path> file;
    private final Supplier<Map<String, String>> nodeLabels;

    public LocalConfig(Optional<Path> file, Supplier<Map<String, String>> nodeLabels) {
        this.file = file;
        this.nodeLabels = nodeLabels;
    }

    /** The file without node labels: for commands that know no node ({@code inventory}, tests). */
    public static LocalConfig of(Optional<Path> file) {
        return new LocalConfig(file, Map::of);
    }

    /** How logs name this configuration without reading it. */
    public String description() {
        return file.map(f -> "--config " + f).orElse(Current.DEFAULT_POLICY.origin());
    }

    @Override
    public Current current() {
        if (file.isEmpty()) return Current.DEFAULT_POLICY;
        ConfigFile.Loaded loaded;
        try {
            loaded = ConfigFile.read(file.get());
        } catch (InvalidConfigException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        String origin = description();
        LayoutSetting layout = loaded.mediatedDevicesConfiguration()
                .<LayoutSetting>map(m -> new LayoutSetting.Desired(MdevTypesForNode.resolve(m, nodeLabels.get()), origin))
                .orElseGet(LayoutSetting.None::new);
        return new Current(origin, loaded.permittedHostDevices(), layout, loaded.warnings());
    }

    /**
     * Only the layout, for a pass whose permitted devices come from elsewhere (the KubeVirt CR): a file
     * that cannot be read then leaves the layout alone instead of failing the pass.
     */
    public LayoutSetting layout() {
        try {
            return current().layout();
        } catch (IllegalStateException e) {
            return new LayoutSetting.Unreadable(e.getMessage());
        }
    }
}
