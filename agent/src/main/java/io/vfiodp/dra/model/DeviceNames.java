package io.vfiodp.dra.model;

import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ExposedDevice;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    /**
     * The device ID (mdev UUID, PCI address) a name of this form stands for
     * ({@code pci-0000-3b-00-0} → {@code 0000:3b:00.0}); empty for a name of another form.
     */
    public static Optional<String> idOf(String name) {
        if (name.startsWith("mdev-") && name.length() > "mdev-".length()) return Optional.of(name.substring("mdev-".length()));
        Matcher m = PCI.matcher(name);
        return m.matches() ? Optional.of(m.group(1) + ":" + m.group(2) + ":" + m.group(3) + "." + m.group(4)) : Optional.empty();
    }

    private static final Pattern PCI = Pattern.compile("pci-([0-9a-f]{4})-([0-9a-f]{2})-([0-9a-f]{2})-([0-7])");
}
