package io.vfiodp.policy;

import java.util.regex.Pattern;

/**
 * The kubelet's own test of a device plugin's resource name, written here independently of
 * {@link ResourceName} as an oracle: {@code Register} refuses a name unless
 * {@code v1helper.IsExtendedResourceName} holds, which is
 * <ul>
 *   <li>not native: it contains a {@code /} and does not contain {@code kubernetes.io/};</li>
 *   <li>not starting with the quota prefix {@code requests.};</li>
 *   <li>{@code requests.} + name is a qualified name ({@code validation.IsQualifiedName}): at most
 *       one {@code /}, a non-empty DNS-1123 subdomain prefix of at most 253 characters, and a name
 *       part of 1..63 characters matching {@code ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]}.</li>
 * </ul>
 */
final class KubeletResourceNameRule {

    private static final Pattern DNS1123_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");

    private KubeletResourceNameRule() {}

    static boolean accepts(String name) {
        if (!name.contains("/") || name.contains("kubernetes.io/")) return false;
        if (name.startsWith("requests.")) return false;
        String[] parts = ("requests." + name).split("/", -1);
        if (parts.length != 2) return false;
        String prefix = parts[0];
        String part = parts[1];
        if (prefix.isEmpty() || prefix.length() > 253 || !DNS1123_SUBDOMAIN.matcher(prefix).matches()) return false;
        return !part.isEmpty() && part.length() <= 63 && QUALIFIED_NAME.matcher(part).matches();
    }
}
