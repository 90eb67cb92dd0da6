package io.vfiodp.libvirt;

import java.util.Optional;

/**
 * What a {@code gpus[]} entry says about the vGPU's display ({@code virtualGPUOptions}).
 * KubeVirt's API documents both {@code display.enabled} and {@code display.ramFB.enabled} as
 * defaulting to true.
 */
public sealed interface VgpuDisplay {

    /** No {@code virtualGPUOptions}: the first vGPU of the VM gets display and ramfb. */
    record Unspecified() implements VgpuDisplay {}

    /**
     * {@code virtualGPUOptions} is given. Without a {@code display} block KubeVirt turns the
     * display off.
     *
     * @param display display on
     * @param ramfb   {@code ramFB.enabled} when given; empty means the default (on)
     */
    record Requested(boolean display, Optional<Boolean> ramfb) implements VgpuDisplay {}
}
