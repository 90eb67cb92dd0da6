package io.vfiodp.policy;

import io.vfiodp.host.Hex;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Resource names the plugin generates when no configuration names them, compatible with
 * NVIDIA's kubevirt-gpu-device-plugin so that VMs written against it keep their
 * {@code deviceName}s, plus the repairs that make every generated name one the kubelet accepts.
 */
public final class DefaultNames {

    public static final String DOMAIN = "nvidia.com";
    /** Length of the hash kept at the end of a shortened name. */
    static final int HASH_LENGTH = 8;

    private static final Pattern WHITESPACE_RUN = Pattern.compile("[ \\t\\n\\x0B\\f\\r]+");

    private DefaultNames() {}

    /**
     * The name part for a pci.ids model name: trim, upper-case, {@code /} and {@code .} to
     * {@code _}, whitespace runs to {@code _}, then every character outside
     * {@code [A-Za-z0-9_.]} dropped. Not yet checked against the kubelet's rule (see
     * {@link #repair}).
     */
    public static String fromModelName(String pciIdsName) {
        String s = upperCaseEachCodePoint(pciIdsName.strip()).replace('/', '_').replace('.', '_');
        s = WHITESPACE_RUN.matcher(s).replaceAll("_");
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (isAsciiAlphanumeric(c) || c == '_' || c == '.') out.append(c);
        }
        return out.toString();
    }

    /**
     * The name part for an unknown model: the device id in lower-case hex, as sysfs prints it.
     */
    public static String fromDeviceId(int device) {
        return Hex.of(device, 4);
    }

    /** The name part for an mdev or SR-IOV vGPU type name: whitespace runs to {@code _}. */
    public static String fromTypeName(String typeName) {
        return WHITESPACE_RUN.matcher(typeName).replaceAll("_");
    }

    /**
     * {@code s} upper-cased one code point at a time. {@link String#toUpperCase} would turn
     * {@code ß} into {@code SS}; NVIDIA's plugin (Go's per-rune {@code ToUpper}) keeps it, and
     * the next step drops it.
     */
    private static String upperCaseEachCodePoint(String s) {
        StringBuilder out = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> out.appendCodePoint(Character.toUpperCase(cp)));
        return out.toString();
    }

    static boolean isAsciiAlphanumeric(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    }

    /** A generated name part after {@link #repair}, with what was changed and why. */
    public record Repaired(String namePart, Optional<String> change) {}

    /**
     * Makes a generated name part valid by the kubelet's rule, deterministically: characters
     * outside {@code [-A-Za-z0-9_.]} are dropped, leading and trailing non-alphanumerics trimmed,
     * and a part longer than 63 characters cut to 54 plus {@code _} and the first 8 hex digits
     * of the SHA-256 of the whole part, so that two long names sharing a prefix stay apart.
     * Empty when nothing usable is left.
     */
    public static Optional<Repaired> repair(String namePart) {
        StringBuilder kept = new StringBuilder(namePart.length());
        for (int i = 0; i < namePart.length(); i++) {
            char c = namePart.charAt(i);
            if (isAsciiAlphanumeric(c) || c == '_' || c == '.' || c == '-') kept.append(c);
        }
        String s = trimNonAlphanumeric(kept.toString());
        if (s.isEmpty()) return Optional.empty();
        StringBuilder why = new StringBuilder();
        if (kept.length() != namePart.length()) {
            why.append("dropped characters the kubelet does not allow");
        }
        if (s.length() != kept.length()) {
            if (!why.isEmpty()) why.append("; ");
            why.append("trimmed leading/trailing characters that are not letters or digits");
        }
        if (s.length() > ResourceName.MAX_NAME_LENGTH) {
            String head = trimNonAlphanumeric(s.substring(0, ResourceName.MAX_NAME_LENGTH - HASH_LENGTH - 1));
            int length = s.length();
            s = head + "_" + shortHash(s);
            if (!why.isEmpty()) why.append("; ");
            why.append("shortened from ").append(length).append(" to ").append(s.length())
                    .append(" characters (the kubelet allows ").append(ResourceName.MAX_NAME_LENGTH)
                    .append("), keeping a hash of the full name");
        }
        Optional<String> change = why.isEmpty()
                ? Optional.empty()
                : Optional.of("'" + namePart + "' is not a valid resource name; using '" + s + "' (" + why + ")");
        return Optional.of(new Repaired(s, change));
    }

    private static String trimNonAlphanumeric(String s) {
        int a = 0;
        int b = s.length();
        while (a < b && !isAsciiAlphanumeric(s.charAt(a))) a++;
        while (b > a && !isAsciiAlphanumeric(s.charAt(b - 1))) b--;
        return s.substring(a, b);
    }

    static String shortHash(String s) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, HASH_LENGTH / 2);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }
}
