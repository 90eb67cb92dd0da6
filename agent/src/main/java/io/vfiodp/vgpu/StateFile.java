package io.vfiodp.vgpu;

import io.vfiodp.host.PciAddress;
import io.vfiodp.state.AtomicFile;
import io.vfiodp.state.JsonShape;
import io.vfiodp.state.StateEnvelope;
import io.vfiodp.state.StateReading;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code <state-dir>/vgpu-owned.json}: which vGPUs this plugin made, so that a restarted plugin
 * still knows what it may remove and never mistakes another owner's mdev for its own. A
 * {@link StateEnvelope state file} (kind {@value #KIND}, version {@value #VERSION}, checksummed),
 * written through {@link AtomicFile}: a crash or a full disk leaves the old content or the new,
 * never half of one. The version-1 file of earlier releases is read in exactly the shape they
 * wrote. A file that cannot be read, is empty or fails its checks is refused with the reason,
 * never read as "none": a damaged list could name another owner's vGPU.
 */
public final class StateFile {

    public static final String NAME = "vgpu-owned.json";
    static final String KIND = "vfio-device-plugin/vgpu-owned";
    static final int VERSION = 2;
    private static final int LEGACY_VERSION = 1;
    private static final Pattern UUID = Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final Path file;

    public StateFile(Path stateDir) {
        this.file = stateDir.resolve(NAME);
    }

    public Path file() {
        return file;
    }

    /**
     * The recorded vGPUs; none when the file does not exist yet.
     *
     * @throws IOException naming the file and what is wrong with it
     */
    public OwnedDevices read() throws IOException {
        return switch (StateEnvelope.read(file, KIND, Set.of(VERSION))) {
            case StateReading.Missing m -> OwnedDevices.NONE;
            case StateReading.Lost l -> throw new IOException("state file " + l.reason());
            case StateReading.Found f -> owned(f.content(), "content", Set.of("mdevs", "vfs"));
            case StateReading.Legacy l -> {
                JsonNode version = l.root().get("version");
                if (version == null || !version.isIntegralNumber() || version.asLong() != LEGACY_VERSION) {
                    throw new IOException("state file " + file + " is neither of kind " + KIND + " nor the version-1 file of earlier releases");
                }
                yield owned(l.root(), "", Set.of("version", "mdevs", "vfs"));
            }
        };
    }

    private OwnedDevices owned(JsonNode content, String at, Set<String> fields) throws IOException {
        try {
            JsonShape.object(content, at, fields, Set.of());
            TreeSet<String> mdevs = new TreeSet<>();
            for (String uuid : JsonShape.texts(content, "mdevs", at)) {
                if (!UUID.matcher(uuid).matches()) throw new IOException(JsonShape.path(at, "mdevs") + ": \"" + uuid + "\" is not an mdev UUID");
                mdevs.add(uuid);
            }
            TreeSet<PciAddress> vfs = new TreeSet<>();
            List<String> addresses = JsonShape.texts(content, "vfs", at);
            for (String address : addresses) {
                Optional<PciAddress> a = PciAddress.tryParse(address);
                if (a.isEmpty()) throw new IOException(JsonShape.path(at, "vfs") + ": \"" + address + "\" is not a PCI address");
                vfs.add(a.get());
            }
            return new OwnedDevices(mdevs, vfs);
        } catch (IOException e) {
            throw new IOException("state file " + file + ": " + e.getMessage(), e);
        }
    }

    public void write(OwnedDevices owned) throws IOException {
        ObjectNode content = StateEnvelope.json().createObjectNode();
        ArrayNode mdevs = content.putArray("mdevs");
        owned.mdevs().forEach(mdevs::add);
        ArrayNode vfs = content.putArray("vfs");
        owned.vfs().forEach(v -> vfs.add(v.toString()));
        try {
            Files.createDirectories(file.getParent());
            AtomicFile.write(file, StateEnvelope.render(KIND, VERSION, content), AtomicFile.WORLD_READABLE);
        } catch (IOException e) {
            String reason = e.getCause() instanceof IOException cause ? AtomicFile.reason(cause) : AtomicFile.reason(e);
            throw new IOException("cannot write state file " + file + ": " + reason, e);
        }
    }
}
