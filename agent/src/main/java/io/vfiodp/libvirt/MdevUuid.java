package io.vfiodp.libvirt;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A mediated device's UUID, the ID an mdev resource hands out and libvirt's
 * {@code <source><address uuid='…'/></source>}. Kept lower-case, as sysfs names the device,
 * so that the same mdev always compares equal however a document spelled it.
 */
public record MdevUuid(String value) {

    private static final Pattern FORMAT =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    public MdevUuid {
        if (value == null || !FORMAT.matcher(value).matches()) {
            throw new IllegalArgumentException("not an mdev UUID (expected 8-4-4-4-12 lower-case hex digits): '" + value + "'");
        }
    }

    /** Accepts either case, as libvirt does; the value is kept lower-case. */
    public static MdevUuid parse(String text) {
        if (text == null) throw new IllegalArgumentException("not an mdev UUID: null");
        String lower = text.toLowerCase(Locale.ROOT);
        if (!FORMAT.matcher(lower).matches()) {
            throw new IllegalArgumentException("not an mdev UUID (expected 8-4-4-4-12 hex digits): '" + text + "'");
        }
        return new MdevUuid(lower);
    }

    @Override
    public String toString() {
        return value;
    }
}
