package io.vfiodp.dra.slices;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The taint an unhealthy device carries in its ResourceSlice (KEP-5055): key
 * {@code <driver>/unhealthy}, effect {@code NoSchedule} (the scheduler allocates it no more; a VM
 * that has it keeps running, as with the device plugin's Unhealthy), and as value the reason, made
 * a label value: at most {@value #MAX_VALUE} characters of {@code [A-Za-z0-9._-]}, alphanumeric at
 * both ends. Other characters become a dash; a reason too long keeps its start and gets a digest of
 * the whole, so that two long reasons never share a value. The whole reason stays in the health
 * stream.
 *
 * @param key    {@code <driver>/unhealthy}
 * @param value  the reason as a label value
 * @param effect {@value #NO_SCHEDULE}
 */
public record HealthTaint(String key, String value, String effect) {

    public static final String NO_SCHEDULE = "NoSchedule";
    static final int MAX_VALUE = 63;
    private static final int DIGEST_HEX = 8;
    private static final Pattern LABEL_VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");

    public HealthTaint {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(effect, "effect");
        if (value.length() > MAX_VALUE || !LABEL_VALUE.matcher(value).matches()) {
            throw new IllegalArgumentException("taint value '" + value + "' is not a label value");
        }
    }

    /** The taint of a device of {@code driver} that is unhealthy for {@code reason}. */
    public static HealthTaint unhealthy(String driver, String reason) {
        return new HealthTaint(key(driver), value(reason), NO_SCHEDULE);
    }

    /** {@code <driver>/unhealthy}: under the driver's own domain. */
    public static String key(String driver) {
        return driver + "/unhealthy";
    }

    /** {@code reason} as a label value, the same for the same reason every time. */
    static String value(String reason) {
        StringBuilder b = new StringBuilder(reason.length());
        for (int i = 0; i < reason.length(); i++) {
            char c = reason.charAt(i);
            boolean kept = c < 128 && (Character.isLetterOrDigit(c) || c == '.' || c == '_');
            if (kept) {
                b.append(c);
            } else if (!b.isEmpty() && b.charAt(b.length() - 1) != '-') {
                b.append('-');
            }
        }
        String v = trimmed(b);
        if (v.isEmpty()) return "unhealthy";
        if (v.length() <= MAX_VALUE) return v;
        return trimmed(new StringBuilder(v.substring(0, MAX_VALUE - DIGEST_HEX - 1))) + "-" + digest(reason);
    }

    /** Without what may not begin or end a label value. */
    private static String trimmed(StringBuilder b) {
        int start = 0;
        int end = b.length();
        while (start < end && !Character.isLetterOrDigit(b.charAt(start))) start++;
        while (end > start && !Character.isLetterOrDigit(b.charAt(end - 1))) end--;
        return b.substring(start, end);
    }

    private static String digest(String s) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, DIGEST_HEX / 2);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
