package io.vfiodp.policy.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where each pass takes its configuration from: the {@code --config} file, the KubeVirt CR, or
 * nothing (the default policy). One reading per pass gives both blocks a pass needs, the permitted
 * devices and the vGPU layout, so that the file is parsed once and both agree on one version of it.
 */
@FunctionalInterface
public interface ConfigSource {

    /**
     * The configuration for one pass.
     *
     * @param origin    how the operator knows the permitted devices' configuration: {@code --config /etc/x.yaml},
     *                  {@code KubeVirt CR kubevirt/kubevirt} or {@code default policy}
     * @param permitted empty for the default policy
     * @param layout    the vGPU layout this node should carry
     * @param warnings  about the source itself (unknown fields in a file)
     */
    record Current(String origin, Optional<PermittedHostDevices> permitted, LayoutSetting layout, List<String> warnings) {

        public static final Current DEFAULT_POLICY = new Current("default policy", Optional.empty(), new LayoutSetting.None(), List.of());

        public Current {
            Objects.requireNonNull(origin, "origin");
            Objects.requireNonNull(permitted, "permitted");
            Objects.requireNonNull(layout, "layout");
            warnings = List.copyOf(warnings);
        }
    }

    /** What a configuration says about the vGPU layout ({@code mediatedDevicesConfiguration}). */
    sealed interface LayoutSetting {
        /** No layout configured: nothing is created or removed. */
        record None() implements LayoutSetting {}

        /** The types this node should carry, resolved for its labels; {@code source} names where they came from. */
        record Desired(DesiredMdevTypes types, String source) implements LayoutSetting {
            public Desired {
                Objects.requireNonNull(types, "types");
                Objects.requireNonNull(source, "source");
            }
        }

        /** The block could not be read this pass; serving goes on, the layout is left as it is. */
        record Unreadable(String problem) implements LayoutSetting {}
    }

    /**
     * The configuration now; throws {@link IllegalStateException} naming the file when the
     * permitted devices cannot be read (the pass keeps the previous state).
     */
    Current current();
}
