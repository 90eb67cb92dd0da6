package io.vfiodp.state;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The form of every state file the agent reads back: a JSON object naming what it holds
 * ({@code kind}), in which {@code version}, its {@code content}, and the {@code checksum} of that
 * content (SHA-256 of its compact JSON). Read strictly: a file that is not exactly this, not of
 * the kind asked for, of a version this agent does not read, or whose checksum does not match, is
 * {@link StateReading.Lost lost}, as is one that is empty, unreadable, a directory, a link, or
 * larger than any the agent writes. What the content must look like is each file's own check
 * ({@link JsonShape}).
 */
public final class StateEnvelope {

    /** Far above any state file the agent writes: a larger one is not ours. */
    static final long MAX_BYTES = 16L << 20;
    private static final Set<String> FIELDS = Set.of("kind", "version", "checksum", "content");
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private StateEnvelope() {}

    /** The file's bytes: the envelope around {@code content}, indented for an operator's eyes. */
    public static byte[] render(String kind, int version, JsonNode content) {
        ObjectNode root = JSON.createObjectNode();
        root.put("kind", kind);
        root.put("version", version);
        root.put("checksum", checksum(content));
        root.set("content", content);
        return (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The mapper state files are built and read with (strict: duplicate keys and trailing data refused). */
    public static JsonMapper json() {
        return JSON;
    }

    /** Reads {@code file} as a state file of {@code kind} in one of {@code versions}. Never throws. */
    public static StateReading read(Path file, String kind, Set<Integer> versions) {
        byte[] bytes;
        try {
            bytes = readRegular(file);
        } catch (NoSuchFileException e) {
            return new StateReading.Missing();
        } catch (IOException e) {
            return new StateReading.Lost(e.getMessage());
        }
        if (new String(bytes, java.nio.charset.StandardCharsets.UTF_8).isBlank()) return new StateReading.Lost(file + " is empty");
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (JacksonException e) {
            return new StateReading.Lost(file + " is not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) return new StateReading.Lost(file + " is not a JSON object");
        if (!root.has("kind")) return new StateReading.Legacy(root);
        try {
            JsonShape.object(root, "", FIELDS, Set.of());
            String written = JsonShape.text(root, "kind", "");
            if (!written.equals(kind)) return new StateReading.Lost(file + " holds " + written + ", not " + kind);
            long version = JsonShape.integer(root, "version", "");
            if (!versions.contains((int) version) || version != (int) version) {
                return new StateReading.Lost(file + " is of version " + version + "; this agent reads version " + describe(versions)
                        + " (a newer agent wrote it?)");
            }
            JsonNode content = root.get("content");
            if (!content.isObject()) return new StateReading.Lost(file + ": content: expected an object");
            if (!JsonShape.text(root, "checksum", "").equals(checksum(content))) {
                return new StateReading.Lost(file + " fails its checksum: it was changed or damaged after it was written");
            }
            return new StateReading.Found((int) version, content);
        } catch (IOException e) {
            return new StateReading.Lost(file + ": " + e.getMessage());
        }
    }

    /** {@code sha256:} and the hex digest of {@code content}'s compact JSON. */
    static String checksum(JsonNode content) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(JSON.writeValueAsBytes(content));
            return "sha256:" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /**
     * The bytes of {@code file}, a regular file of at most {@value #MAX_BYTES} bytes, read without
     * following a link.
     *
     * @throws NoSuchFileException when there is no such file
     * @throws IOException         with a message naming the file and what is wrong (a directory, a
     *                             link, too large, unreadable)
     */
    public static byte[] readRegular(Path file) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw e;
        } catch (IOException e) {
            throw new IOException(file + " cannot be read: " + AtomicFile.reason(e), e);
        }
        if (a.isDirectory()) throw new IOException(file + " is a directory, not a file");
        if (a.isSymbolicLink()) throw new IOException(file + " is a symbolic link, which the agent never writes");
        if (!a.isRegularFile()) throw new IOException(file + " is not a regular file");
        if (a.size() > MAX_BYTES) throw new IOException(file + " holds " + a.size() + " bytes, more than any the agent writes");
        byte[] bytes;
        try (InputStream in = Channels.newInputStream(Files.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)))) {
            // one byte more than allowed tells a file that grew since its size was read
            bytes = in.readNBytes((int) MAX_BYTES + 1);
        } catch (NoSuchFileException e) {
            throw e;
        } catch (IOException e) {
            throw new IOException(file + " cannot be read: " + AtomicFile.reason(e), e);
        }
        if (bytes.length > MAX_BYTES) throw new IOException(file + " holds more bytes than any the agent writes");
        return bytes;
    }

    private static String describe(Set<Integer> versions) {
        return String.join(" or ", new TreeSet<>(versions).stream().map(String::valueOf).toList());
    }
}
