package io.vfiodp.kubelet;

import java.util.Objects;

/** A device a container of a running pod holds, as the kubelet's PodResources API lists it. */
public sealed interface HeldDevice {

    /** {@code namespace/name} of the pod. */
    String pod();

    /**
     * Allocated through a device plugin.
     *
     * @param resource the extended resource ({@code nvidia.com/TU104GL_TESLA_T4})
     * @param id       the device ID the plugin listed (a PCI address, an mdev UUID)
     */
    record ByPlugin(String pod, String container, String resource, String id) implements HeldDevice {
        public ByPlugin {
            Objects.requireNonNull(pod, "pod");
            Objects.requireNonNull(resource, "resource");
            Objects.requireNonNull(id, "id");
        }
    }

    /**
     * Prepared through DRA for one of the pod's claims.
     *
     * @param claim  {@code namespace/name} of the ResourceClaim
     * @param device the device's name in {@code pool}
     */
    record ByClaim(String pod, String container, String claim, String driver, String pool, String device) implements HeldDevice {
        public ByClaim {
            Objects.requireNonNull(pod, "pod");
            Objects.requireNonNull(driver, "driver");
            Objects.requireNonNull(pool, "pool");
            Objects.requireNonNull(device, "device");
        }
    }
}
