package io.vfiodp.host.scan;

/** Parsing of single-value sysfs attributes, with errors that name the file. */
final class SysfsValues {

    private SysfsValues() {}

    /**
     * A {@code 0x}-prefixed hex number as the PCI core prints it ({@code 0x10de},
     * {@code 0x030200}, {@code 0xa1}), at most {@code max}.
     */
    static int hex(String text, int max, String shownAs) throws EntryUnreadable {
        if (text.length() < 3 || text.length() > 10 || !(text.startsWith("0x") || text.startsWith("0X"))) {
            throw new EntryUnreadable(shownAs, "not a hex number: " + quote(text));
        }
        long value = 0;
        for (int i = 2; i < text.length(); i++) {
            int digit = Character.digit(text.charAt(i), 16);
            if (digit < 0) throw new EntryUnreadable(shownAs, "not a hex number: " + quote(text));
            value = value * 16 + digit;
        }
        if (value > max) {
            throw new EntryUnreadable(shownAs, "out of range (max 0x" + Integer.toHexString(max) + "): " + quote(text));
        }
        return (int) value;
    }

    /** A decimal integer, optionally negative, between {@code min} and {@code max}. */
    static int decimal(String text, int min, int max, String shownAs) throws EntryUnreadable {
        int start = text.startsWith("-") ? 1 : 0;
        if (text.length() == start || text.length() - start > 10) {
            throw new EntryUnreadable(shownAs, "not a decimal number: " + quote(text));
        }
        long value = 0;
        for (int i = start; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') throw new EntryUnreadable(shownAs, "not a decimal number: " + quote(text));
            value = value * 10 + (c - '0');
        }
        if (start == 1) value = -value;
        if (value < min || value > max) {
            throw new EntryUnreadable(shownAs, "out of range [" + min + ", " + max + "]: " + quote(text));
        }
        return (int) value;
    }

    /** Shortened, printable rendering of a bad value for a problem message. */
    static String quote(String text) {
        StringBuilder sb = new StringBuilder("'");
        int limit = Math.min(text.length(), 40);
        for (int i = 0; i < limit; i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7f) sb.append(c);
            else sb.append(String.format("\\u%04x", (int) c));
        }
        if (text.length() > limit) sb.append("…");
        return sb.append('\'').toString();
    }
}
