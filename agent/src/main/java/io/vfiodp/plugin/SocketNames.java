package io.vfiodp.plugin;

import io.vfiodp.policy.ResourceName;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.OptionalInt;

/**
 * Socket file names for our per-resource servers: {@code vfio-dp-<domain>_<name>.sock}.
 *
 * <p>Never {@code kubevirt-*}: KubeVirt's virt-handler and NVIDIA's plugin own that prefix. A
 * valid resource name has exactly one {@code /} and no {@code _} in its domain, so replacing the
 * {@code /} by {@code _} keeps names distinct. Unix socket paths hold at most 107 bytes; a name
 * that would not fit is cut and tagged with a hash of the full resource name, which keeps it
 * stable across restarts and distinct from its neighbours.
 */
public final class SocketNames {

    public static final String PREFIX = "vfio-dp-";
    public static final String SUFFIX = ".sock";
    public static final int MAX_PATH_BYTES = 107;
    static final int HASH_CHARS = 10;
    /** The shortest a name can be cut to: one character of the resource name, then the tag. */
    private static final int SHORTEST_CUT = PREFIX.length() + 1 + 1 + HASH_CHARS + SUFFIX.length();
    /** The longest directory path (bytes) in which every resource's socket fits: the path, a {@code /} and the shortest cut name. */
    public static final int MAX_DIR_BYTES = MAX_PATH_BYTES - 1 - SHORTEST_CUT;

    /**
     * The longest resource name there can be, by {@link ResourceName}'s rules: longest prefix,
     * longest name part. Its socket name is the longest the plugin makes in any directory: cut
     * to fill the path's 107 bytes exactly, where others may fit whole.
     */
    static final ResourceName LONGEST_RESOURCE = ResourceName.of("a".repeat(ResourceName.MAX_PREFIX_LENGTH) + "/"
            + "a".repeat(ResourceName.MAX_NAME_LENGTH));

    private SocketNames() {}

    /** The socket file name for {@code resource} inside {@code dir}; throws when {@code dir} leaves no room. */
    public static String forResource(Path dir, ResourceName resource) {
        String body = resource.value().replace('/', '_');
        OptionalInt cut = cutLength(dir, body);
        if (cut.isEmpty()) return PREFIX + body + SUFFIX;
        return PREFIX + body.substring(0, Math.min(cut.getAsInt(), body.length())) + "-" + hash(resource.value()) + SUFFIX;
    }

    /**
     * Throws as {@link #forResource} would for {@code resource} in {@code dir}, without making the
     * name: the start-up check of the directory hashes nothing, so it loads none of the JDK's
     * security providers (their classes and the java.security file) before the first registration
     * (docs/benchmarks.md, "Choices in the code").
     */
    public static void checkRoom(Path dir, ResourceName resource) {
        cutLength(dir, resource.value().replace('/', '_'));
    }

    /** Empty when {@code body} fits whole, else how many of its characters fit beside the hash tag; throws when none does. */
    private static OptionalInt cutLength(Path dir, String body) {
        int dirBytes = dir.toAbsolutePath().normalize().toString().getBytes(StandardCharsets.UTF_8).length + 1;
        if (dirBytes + PREFIX.length() + body.length() + SUFFIX.length() <= MAX_PATH_BYTES) return OptionalInt.empty();
        int room = MAX_PATH_BYTES - dirBytes - PREFIX.length() - 1 - HASH_CHARS - SUFFIX.length();
        if (room < 1) {
            throw new IllegalArgumentException("device-plugin dir " + dir + " is too long: a socket path in it cannot stay within "
                    + MAX_PATH_BYTES + " bytes (the directory's path has " + (dirBytes - 1) + " bytes; at most " + MAX_DIR_BYTES
                    + " leave room for the socket of every resource name)");
        }
        return OptionalInt.of(room);
    }

    private static String hash(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, HASH_CHARS);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
