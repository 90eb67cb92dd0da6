package io.vfiodp.libvirt;

import io.vfiodp.host.PciAddress;
import java.util.Optional;

/** Planned hostdevs as JAXB elements, spelled as KubeVirt spells them; and the way back to a device key. */
final class HostdevElements {

    private HostdevElements() {}

    static HostDev of(PlannedHostdev planned) {
        return switch (planned) {
            case PlannedHostdev.Pci pci -> {
                HostDev h = pci(pci.source(), pci.alias());
                if (pci.display()) h.display = "on";
                if (pci.ramfb()) h.ramfb = "on";
                yield h;
            }
            case PlannedHostdev.Mdev mdev -> mdev(mdev);
        };
    }

    static HostDev pci(PciAddress source, String alias) {
        HostDev h = new HostDev();
        h.mode = "subsystem";
        h.type = "pci";
        h.managed = "no";
        h.source = new HostDevSource();
        h.source.address = new DeviceAddress();
        h.source.address.domain = String.format("0x%04x", source.domain());
        h.source.address.bus = String.format("0x%02x", source.bus());
        h.source.address.slot = String.format("0x%02x", source.slot());
        h.source.address.function = String.format("0x%x", source.function());
        h.alias = alias(alias);
        return h;
    }

    private static HostDev mdev(PlannedHostdev.Mdev mdev) {
        HostDev h = new HostDev();
        h.mode = "subsystem";
        h.type = "mdev";
        h.model = "vfio-pci";
        if (mdev.display()) h.display = "on";
        if (mdev.ramfb()) h.ramfb = "on";
        h.source = new HostDevSource();
        h.source.address = new DeviceAddress();
        h.source.address.uuid = mdev.uuid().value();
        h.alias = alias(mdev.alias());
        return h;
    }

    private static DeviceAlias alias(String name) {
        DeviceAlias a = new DeviceAlias();
        a.name = name;
        return a;
    }

    /** A guest {@code <address type='pci' …/>}; {@code multifunction='on'} on function 0. */
    static DeviceAddress guestPci(PciAddress at) {
        DeviceAddress a = new DeviceAddress();
        a.type = "pci";
        a.domain = String.format("0x%04x", at.domain());
        a.bus = String.format("0x%02x", at.bus());
        a.slot = String.format("0x%02x", at.slot());
        a.function = String.format("0x%x", at.function());
        if (at.function() == 0) a.multifunction = "on";
        return a;
    }

    /** The device a hostdev attaches, as a key: {@code pci:0000:3b:00.0} or {@code mdev:<uuid>}. */
    static Optional<String> key(HostDev h) {
        if (h.source == null || h.source.address == null) return Optional.empty();
        DeviceAddress a = h.source.address;
        try {
            if ("pci".equals(h.type)) {
                return Optional.of(key(new PciAddress(DomainDocument.number(a.domain), DomainDocument.number(a.bus),
                        DomainDocument.number(a.slot), DomainDocument.number(a.function))));
            }
            if ("mdev".equals(h.type) && a.uuid != null) return Optional.of(key(MdevUuid.parse(a.uuid)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    static String key(PciAddress source) {
        return "pci:" + source;
    }

    static String key(MdevUuid uuid) {
        return "mdev:" + uuid.value();
    }

    static String key(PlannedHostdev planned) {
        return switch (planned) {
            case PlannedHostdev.Pci pci -> key(pci.source());
            case PlannedHostdev.Mdev mdev -> key(mdev.uuid());
        };
    }
}
