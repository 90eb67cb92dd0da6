package io.vfiodp.libvirt;

import io.vfiodp.policy.DeviceKind;

/** What the environment holds for one resource name. */
sealed interface ResourceVariable {

    /** {@code PCI_RESOURCE_<NAME>} or {@code MDEV_PCI_RESOURCE_<NAME>} with its raw value. */
    record Set(DeviceKind kind, String name, String value) implements ResourceVariable {}

    /** A USB host device resource: KubeVirt converts those itself. */
    record Usb(String name) implements ResourceVariable {}

    /** Neither variable is set. */
    record Unset(String pciName, String mdevName) implements ResourceVariable {}

    /** Both are set, which the env-var contract forbids: positions would be ambiguous. */
    record Both(String pciName, String mdevName) implements ResourceVariable {}
}
