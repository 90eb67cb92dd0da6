package io.vfiodp.testkit.deviceplugin;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The kubelet's test of the resource name in a Register request:
 * {@code v1helper.IsExtendedResourceName} (pkg/apis/core/v1/helper/helpers.go). The name is not
 * native (it has a {@code /} and no {@code kubernetes.io/}), does not start with the quota prefix
 * {@code requests.}, and with that prefix put in front is a qualified name
 * ({@code validation.IsQualifiedName}, k8s.io/apimachinery): a DNS-1123 subdomain of at most
 * {@value #MAX_PREFIX_LENGTH} characters, a {@code /}, and a name part of at most
 * {@value #MAX_NAME_LENGTH} characters.
 */
final class ExtendedResourceName {

    static final String QUOTA_PREFIX = "requests.";
    static final int MAX_PREFIX_LENGTH = 253;
    static final int MAX_NAME_LENGTH = 63;
    private static final Pattern DNS_1123_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern NAME_PART = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    // apimachinery's words for the two patterns
    private static final String SUBDOMAIN_RULE = "must consist of lower case alphanumeric characters, '-' or '.', and must start and end"
            + " with an alphanumeric character";
    private static final String NAME_RULE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
            + " alphanumeric character";

    private ExtendedResourceName() {}

    /** Why the kubelet refuses {@code name} as an extended resource name; empty when it takes it. */
    static Optional<String> problem(String name) {
        String of = "resource name '" + name + "': ";
        if (!name.contains("/")) return Optional.of(of + "has no domain prefix, so it would be a native resource (write <domain>/<name>)");
        if (name.contains("kubernetes.io/")) return Optional.of(of + "the kubernetes.io domain is the native resources'");
        if (name.startsWith(QUOTA_PREFIX)) return Optional.of(of + "starts with the quota prefix '" + QUOTA_PREFIX + "'");
        String[] parts = (QUOTA_PREFIX + name).split("/", -1);
        if (parts.length != 2) return Optional.of(of + "has more than one '/'");
        String prefix = parts[0];
        String part = parts[1];
        if (prefix.length() > MAX_PREFIX_LENGTH) {
            return Optional.of(of + "with '" + QUOTA_PREFIX + "' in front its prefix is " + prefix.length() + " characters, at most "
                    + MAX_PREFIX_LENGTH + " are allowed");
        }
        if (!DNS_1123_SUBDOMAIN.matcher(prefix).matches()) return Optional.of(of + "prefix part " + SUBDOMAIN_RULE);
        if (part.isEmpty()) return Optional.of(of + "name part is empty");
        if (part.length() > MAX_NAME_LENGTH) {
            return Optional.of(of + "name part is " + part.length() + " characters, at most " + MAX_NAME_LENGTH + " are allowed");
        }
        if (!NAME_PART.matcher(part).matches()) return Optional.of(of + "name part " + NAME_RULE);
        return Optional.empty();
    }
}
