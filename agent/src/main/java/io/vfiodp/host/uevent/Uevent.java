package io.vfiodp.host.uevent;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.PciAddress;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One kernel uevent as {@code NETLINK_KOBJECT_UEVENT} delivers it: a header
 * {@code ACTION@DEVPATH}, then {@code KEY=VALUE} properties, each NUL-terminated.
 *
 * @param action     {@code add}, {@code remove}, {@code bind}, {@code unbind}, {@code change}, ...
 * @param devpath    the device's path below {@code /sys}, e.g. {@code /devices/pci0000:00/0000:00:02.0/0000:01:00.0}
 * @param subsystem  {@code pci}, {@code mdev}, {@code vfio}, ...
 * @param seqnum     the kernel's event sequence number
 * @param properties every property, ACTION, DEVPATH, SUBSYSTEM and SEQNUM included
 */
public record Uevent(String action, String devpath, String subsystem, long seqnum, SortedMap<String, String> properties) {

    /** The kernel's own limit is 2 KiB of properties (UEVENT_BUFFER_SIZE) plus the header. */
    static final int MAX_MESSAGE_BYTES = 8192;

    public Uevent {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(devpath, "devpath");
        Objects.requireNonNull(subsystem, "subsystem");
        properties = Collections.unmodifiableSortedMap(new TreeMap<>(properties));
    }

    /**
     * The devices this event says changed, as the scan's {@code rescan} reads them again; empty
     * when the event concerns nothing the scan reads. A PCI event names its function; an mdev
     * event the mdev and its parent (whose types' available instances changed); a {@code vfio-dev}
     * event the function whose {@code vfio-dev/vfioN} it is; a {@code vfio} event (a group's
     * {@code /dev/vfio/N}) names no device, as {@code /dev} is read on every rescan.
     */
    public Optional<ChangedDevices> changes() {
        String[] parts = devpath.split("/");
        String last = parts[parts.length - 1];
        return switch (subsystem) {
            case "pci" -> PciAddress.tryParse(properties.getOrDefault("PCI_SLOT_NAME", last)).map(ChangedDevices::function);
            case "mdev" -> {
                if (!MdevInstance.isUuid(last)) yield Optional.empty();
                Set<PciAddress> parent = parts.length >= 2
                        ? PciAddress.tryParse(parts[parts.length - 2]).map(Set::of).orElse(Set.of()) : Set.of();
                yield Optional.of(ChangedDevices.of(parent, Set.of(last)));
            }
            case "vfio-dev" -> parts.length >= 3 && parts[parts.length - 2].equals("vfio-dev")
                    ? PciAddress.tryParse(parts[parts.length - 3]).map(ChangedDevices::function) : Optional.empty();
            case "vfio" -> Optional.of(ChangedDevices.NONE);
            default -> Optional.empty();
        };
    }

    /** Parses the first {@code length} bytes of a message from the uevent socket. */
    public static UeventReceipt parse(byte[] message, int length) {
        if (length <= 0) return new UeventReceipt.Dropped("empty message");
        if (length > message.length) throw new IllegalArgumentException("length " + length + " beyond the buffer of " + message.length);
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(message, 0, length)).toString();
        } catch (CharacterCodingException e) {
            return new UeventReceipt.Dropped("not a kernel uevent: not UTF-8 text");
        }
        String[] fields = text.split("\0");
        String header = fields[0];
        int at = header.indexOf('@');
        if (at <= 0 || at == header.length() - 1) {
            return new UeventReceipt.Dropped("not a kernel uevent: header " + quote(header) + " is not ACTION@DEVPATH");
        }
        TreeMap<String, String> properties = new TreeMap<>();
        for (int i = 1; i < fields.length; i++) {
            String field = fields[i];
            if (field.isEmpty()) continue;
            int eq = field.indexOf('=');
            if (eq <= 0) return new UeventReceipt.Dropped("uevent " + header + ": property " + quote(field) + " is not KEY=VALUE");
            properties.put(field.substring(0, eq), field.substring(eq + 1));
        }
        for (String key : new String[] {"ACTION", "DEVPATH", "SUBSYSTEM", "SEQNUM"}) {
            if (!properties.containsKey(key)) return new UeventReceipt.Dropped("uevent " + header + ": no " + key + " property");
        }
        String action = properties.get("ACTION");
        String devpath = properties.get("DEVPATH");
        if (!header.equals(action + "@" + devpath)) {
            return new UeventReceipt.Dropped("uevent " + header + ": header disagrees with ACTION=" + action + " DEVPATH=" + devpath);
        }
        long seqnum;
        try {
            seqnum = Long.parseUnsignedLong(properties.get("SEQNUM"));
        } catch (NumberFormatException e) {
            return new UeventReceipt.Dropped("uevent " + header + ": SEQNUM " + quote(properties.get("SEQNUM")) + " is not a number");
        }
        return new UeventReceipt.Event(new Uevent(action, devpath, properties.get("SUBSYSTEM"), seqnum, properties));
    }

    private static String quote(String s) {
        String shown = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        return "'" + shown.replace("\n", "\\n") + "'";
    }

    @Override
    public String toString() {
        return action + "@" + devpath + " (" + subsystem + ", seqnum " + seqnum + ")";
    }
}
