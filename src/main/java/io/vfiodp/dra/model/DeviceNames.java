package io.vfiodp.dra.model;

import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ExposedDevice;
import java.util.Locale;

/**
 * The name a device has in this node's pool: a DNS label, as the API requires, that still reads
 * as the device ({@code pci-0000-3b-00-0}, {@code mdev-0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27}).
 */
public final class DeviceNames {

    private DeviceNames() {}

    public static String of(ExposedDevice d) {
        return d.kind() == DeviceKind.MDEV ? "mdev-" + d.id().toLowerCase(Locale.ROOT)
                : "pci-" + d.pciAddress().toString().replace(':', '-').replace('.', '-');
    }
}
