package io.vfiodp.host;

/**
 * Ids in lower-case hex, zero-padded, as sysfs, lspci and selectors print them. What
 * {@code String.format("%04x", v)} prints, without the {@link java.util.Formatter} and its format
 * parsing: the first pass formats an id or two per PCI function, interpreted, where
 * {@code String.format} was a large part of the policy's time (docs/benchmarks.md, "Choices in the code").
 */
public final class Hex {

    private Hex() {}

    /** {@code value} as {@code %0<digits>x} prints it: lower-case hex, zero-padded to {@code digits}, never cut. */
    public static String of(int value, int digits) {
        String hex = Integer.toHexString(value);
        return hex.length() >= digits ? hex : "0".repeat(digits - hex.length()) + hex;
    }
}
