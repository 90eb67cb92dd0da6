package io.vfiodp.libvirt;

import java.util.Optional;

/**
 * What a {@code gpus[]} entry says about its display ({@code virtualGPUOptions.display}), as
 * written: virt-launcher tells "not given" from "false" ({@code hostdevice/hostdev.go}), so the
 * flags stay optional here and {@link HostdevPlanner} applies KubeVirt's defaults.
 */
public sealed interface VgpuDisplay {

    /** No {@code display} block: no {@code virtualGPUOptions}, or {@code virtualGPUOptions: {}}. */
    record Unspecified() implements VgpuDisplay {}

    /**
     * A {@code display} block.
     *
     * @param enabled {@code display.enabled} when given
     * @param ramfb   {@code display.ramFB.enabled} when given (also empty for {@code ramFB: {}})
     */
    record Requested(Optional<Boolean> enabled, Optional<Boolean> ramfb) implements VgpuDisplay {}
}
