package io.vfiodp.libvirt;

import java.util.Objects;
import java.util.Optional;

/**
 * What a {@code gpus[]} entry says about its display ({@code virtualGPUOptions.display}), as
 * written: virt-launcher tells "not given" from "false" ({@code hostdevice/hostdev.go}), so the
 * flags stay as written here and {@link GpuDisplays} applies KubeVirt's defaults.
 */
public sealed interface VgpuDisplay {

    /** No {@code display} block: no {@code virtualGPUOptions}, or {@code virtualGPUOptions: {}}. */
    record Unspecified() implements VgpuDisplay {}

    /**
     * A {@code display} block.
     *
     * @param enabled {@code display.enabled} when given
     * @param ramFb   {@code display.ramFB} as written
     */
    record Requested(Optional<Boolean> enabled, RamFb ramFb) implements VgpuDisplay {
        public Requested {
            Objects.requireNonNull(enabled, "enabled");
            Objects.requireNonNull(ramFb, "ramFb");
        }
    }

    /** {@code display.ramFB} (a {@code FeatureState}) as written. */
    enum RamFb {
        /** No {@code ramFB} block. */
        ABSENT,
        /** {@code ramFB: {}}: the block without {@code enabled}. */
        UNSET,
        /** {@code ramFB: {enabled: true}}. */
        ENABLED,
        /** {@code ramFB: {enabled: false}}. */
        DISABLED;

        /**
         * As KubeVirt stores it: virt-api's VMI mutator defaults every VMI it admits
         * ({@code pkg/virt-api/webhooks/mutating-webhook/mutators/vmi-mutator.go} calls
         * {@code defaults.SetDefaultVirtualMachineInstance}, which calls
         * {@code v1.SetObjectDefaults_VirtualMachineInstance}), and {@code SetDefaults_FeatureState}
         * ({@code staging/src/kubevirt.io/api/core/v1/defaults.go}) gives a present
         * {@code ramFB} without {@code enabled} {@code enabled: true}; an absent one stays absent.
         * Alike in v1.9.0 and main.
         */
        public RamFb admitted() {
            return this == UNSET ? ENABLED : this;
        }
    }
}
