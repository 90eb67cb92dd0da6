package io.vfiodp.vgpu;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import io.vfiodp.host.PciAddress;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.TreeSet;

/**
 * {@code <state-dir>/vgpu-owned.json}: which vGPUs this plugin made, so that a restarted plugin
 * still knows what it may remove and never mistakes another owner's mdev for its own. Written to
 * a temporary file in the same directory and renamed over the old one, so a crash or a full disk
 * leaves either the old or the new content, never half of one.
 */
public final class StateFile {

    public static final String NAME = "vgpu-owned.json";
    private static final int VERSION = 1;
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private final Path file;

    public StateFile(Path stateDir) {
        this.file = stateDir.resolve(NAME);
    }

    /** The recorded vGPUs; none when the file does not exist yet. */
    public OwnedDevices read() throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return OwnedDevices.NONE;
        }
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (JacksonException e) {
            throw new IOException("state file " + file + " is not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject() || root.path("version").asInt() != VERSION) {
            throw new IOException("state file " + file + ": expected a JSON object with \"version\": " + VERSION);
        }
        TreeSet<String> mdevs = new TreeSet<>();
        for (JsonNode n : root.path("mdevs")) mdevs.add(n.asString());
        TreeSet<PciAddress> vfs = new TreeSet<>();
        for (JsonNode n : root.path("vfs")) {
            Optional<PciAddress> a = PciAddress.tryParse(n.asString());
            if (a.isEmpty()) throw new IOException("state file " + file + ": \"vfs\" entry " + n + " is not a PCI address");
            vfs.add(a.get());
        }
        return new OwnedDevices(mdevs, vfs);
    }

    // The errno text ("No space left on device") says what to do; FileSystemException's message repeats the path.
    private static String reason(IOException e) {
        if (e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null) return fse.getReason();
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    public void write(OwnedDevices owned) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", VERSION);
        ArrayNode mdevs = root.putArray("mdevs");
        owned.mdevs().forEach(mdevs::add);
        ArrayNode vfs = root.putArray("vfs");
        owned.vfs().forEach(v -> vfs.add(v.toString()));
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(NAME + ".tmp");
        try {
            Files.write(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // The write error below is the one to report.
            }
            throw new IOException("cannot write state file " + file + ": " + reason(e), e);
        }
    }
}
