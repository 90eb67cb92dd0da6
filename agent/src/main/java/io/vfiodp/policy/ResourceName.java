package io.vfiodp.policy;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A Kubernetes extended resource name, valid by the kubelet's own rule
 * ({@code v1helper.IsExtendedResourceName}): a DNS-subdomain prefix that does not end in
 * {@code kubernetes.io} nor start with the quota prefix {@code requests.}, and is short enough
 * that {@code requests.<prefix>} fits 253 characters; a {@code /}; and a name part matching
 * {@code [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?} of at most 63 characters. The kubelet rejects
 * a registration that breaks it, so no instance of this type can break it.
 */
public record ResourceName(String value) implements Comparable<ResourceName> {

    public static final int MAX_NAME_LENGTH = 63;
    private static final int MAX_DOMAIN_LENGTH = 253;
    private static final String QUOTA_PREFIX = "requests.";
    /** The longest domain prefix: {@code requests.<prefix>} must fit {@value #MAX_DOMAIN_LENGTH} characters. */
    public static final int MAX_PREFIX_LENGTH = MAX_DOMAIN_LENGTH - QUOTA_PREFIX.length();
    private static final Pattern NAME_PART = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    // DNS-1123 subdomain, as the kubelet checks the prefix of a qualified name
    private static final Pattern DOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    public ResourceName {
        Optional<String> problem = problem(value);
        if (problem.isPresent()) throw new IllegalArgumentException(problem.get());
    }

    public static ResourceName of(String value) {
        return new ResourceName(value);
    }

    /** Why {@code value} is not a valid extended resource name, or empty when it is. */
    public static Optional<String> problem(String value) {
        if (value == null || value.isEmpty()) return Optional.of("resource name is empty");
        int slash = value.indexOf('/');
        if (slash < 0) {
            return Optional.of("resource name '" + value + "' has no domain prefix: write it as <domain>/<name>, e.g. nvidia.com/" + value);
        }
        if (value.indexOf('/', slash + 1) >= 0) {
            return Optional.of("resource name '" + value + "' has more than one '/'");
        }
        String domain = value.substring(0, slash);
        String name = value.substring(slash + 1);
        if (domain.isEmpty() || !DOMAIN.matcher(domain).matches()) {
            return Optional.of("resource name '" + value + "': prefix '" + domain + "' is not a DNS subdomain (lower-case letters, digits, '-', '.')");
        }
        // the kubelet checks the name as a quota would see it, "requests." in front
        if (QUOTA_PREFIX.length() + domain.length() > MAX_DOMAIN_LENGTH) {
            return Optional.of("resource name '" + value + "': prefix '" + domain + "' is " + domain.length()
                    + " characters, the kubelet allows at most " + (MAX_DOMAIN_LENGTH - QUOTA_PREFIX.length()));
        }
        if (domain.startsWith(QUOTA_PREFIX)) {
            return Optional.of("resource name '" + value + "': a prefix starting with '" + QUOTA_PREFIX
                    + "' is refused by the kubelet (it is the resource quota prefix)");
        }
        // the kubelet's test is "contains kubernetes.io/", so any prefix ending in kubernetes.io is native
        if (domain.endsWith("kubernetes.io")) {
            return Optional.of("resource name '" + value + "': the kubernetes.io domain is reserved and not allowed for extended resources");
        }
        if (name.isEmpty()) return Optional.of("resource name '" + value + "' has an empty name after '/'");
        if (name.length() > MAX_NAME_LENGTH) {
            return Optional.of("resource name '" + value + "': name part is " + name.length() + " characters, the kubelet allows at most " + MAX_NAME_LENGTH);
        }
        if (!NAME_PART.matcher(name).matches()) {
            return Optional.of("resource name '" + value + "': name part '" + name + "' must start and end with a letter or digit and contain only letters, digits, '-', '_' and '.'");
        }
        return Optional.empty();
    }

    public String domain() {
        return value.substring(0, value.indexOf('/'));
    }

    public String name() {
        return value.substring(value.indexOf('/') + 1);
    }

    @Override
    public int compareTo(ResourceName o) {
        return value.compareTo(o.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
