package io.vfiodp.handover;

import io.vfiodp.state.AtomicFile;
import io.vfiodp.state.JsonShape;
import io.vfiodp.state.StateEnvelope;
import io.vfiodp.state.StateReading;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Where the {@link HandoverRecord} is kept across restarts: {@value #FILE} in the directory
 * {@value #DIR} of the device-plugin directory (the one directory serve always writes), a
 * {@link StateEnvelope state file} written through {@link AtomicFile}.
 *
 * <p>Why a directory of its own: on start, the kubelet's device manager cleans its directory
 * ({@code CleanupPluginDirectory} in {@code pkg/kubelet/cm/devicemanager/manager.go}). Kubelets
 * up to at least 1.32 remove every entry there but directories and {@code kubelet_internal_checkpoint}
 * (as at kubernetes/kubernetes commit 0022bec3a2af83fe052790cdde8425ad3d24a77d, and seen on a
 * v1.32 kubelet); newer ones remove sockets only (commit 7510f32987feb7efbaced9aec1ca15303dea252b).
 * Both skip directories, so the record survives every kubelet restart there. Versions before
 * this one kept it as the plain file {@value #LEGACY_FILE} beside the sockets; a load moves it
 * over.
 *
 * <p>No file is no device, unless the kubelet has run device plugins here (its checkpoint,
 * {@value #KUBELET_CHECKPOINT}, is there) or the record's directory is there: then the record was
 * lost, or a version that kept none ran, and any device may be held. A file that cannot be read,
 * is empty or fails its checks is lost too, never read as no device.
 */
public final class HandoverRecordFile {

    public static final String DIR = "vfio-device-plugin";
    public static final String FILE = "offered-devices.json";
    static final String LEGACY_FILE = "vfio-dp-offered-devices";
    static final String KIND = "vfio-device-plugin/offered-devices";
    static final int VERSION = 1;
    static final String KUBELET_CHECKPOINT = "kubelet_internal_checkpoint";
    private static final String LEGACY_HEADER = "# devices the device plugins of vfio-device-plugin offered on this node that no pod has"
            + " been shown not to hold since (PodResources); one ID a line";
    private static final Pattern DEVICE_ID = Pattern.compile(
            "[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.handover");

    private final Path pluginDir;

    public HandoverRecordFile(Path devicePluginDir) {
        this.pluginDir = devicePluginDir;
    }

    public Path file() {
        return pluginDir.resolve(DIR).resolve(FILE);
    }

    Path legacyFile() {
        return pluginDir.resolve(LEGACY_FILE);
    }

    /**
     * The record, or {@link HandoverRecord.Lost} saying why there is none to trust. A record an
     * earlier version left beside the sockets is merged in and moved over. Never throws.
     */
    public HandoverRecord load() {
        HandoverRecord current = current();
        HandoverRecord legacy;
        try {
            legacy = legacy(StateEnvelope.readRegular(legacyFile()));
        } catch (NoSuchFileException e) {
            return current;
        } catch (IOException e) {
            legacy = new HandoverRecord.Lost(e.getMessage());
        }
        // a record in both places: an earlier version ran after this one; what either names may be held
        boolean neverWritten = !Files.exists(file().getParent(), LinkOption.NOFOLLOW_LINKS);
        HandoverRecord merged = neverWritten ? legacy : switch (current) {
            case HandoverRecord.Lost lost -> lost;
            case HandoverRecord.Known k -> legacy instanceof HandoverRecord.Known l ? union(k, l) : legacy;
        };
        if (merged instanceof HandoverRecord.Known k) {
            try {
                write(k);
                log.info("switch: moved the record of what the device plugins offered from {} to {}, where the kubelet leaves it",
                        legacyFile(), file());
            } catch (IOException e) {
                log.warn("switch: the record of what the device plugins offered stays in {} for now, where a kubelet restart removes it: {}",
                        legacyFile(), e.getMessage());
            }
        }
        return merged;
    }

    /** The record in its own directory: lost when a file that should be there is not, or fails its checks. */
    private HandoverRecord current() {
        return switch (StateEnvelope.read(file(), KIND, Set.of(VERSION))) {
            case StateReading.Found f -> {
                try {
                    yield new HandoverRecord.Known(devices(f.content()));
                } catch (IOException e) {
                    yield new HandoverRecord.Lost(file() + ": " + e.getMessage());
                }
            }
            case StateReading.Legacy l -> new HandoverRecord.Lost(file() + " is not a record the agent wrote (it has no kind)");
            case StateReading.Lost l -> new HandoverRecord.Lost(l.reason());
            case StateReading.Missing m -> {
                if (Files.exists(file().getParent(), LinkOption.NOFOLLOW_LINKS)) {
                    yield new HandoverRecord.Lost(file() + " is missing, though its directory is there");
                }
                if (Files.exists(pluginDir.resolve(KUBELET_CHECKPOINT))) {
                    yield new HandoverRecord.Lost(file() + " is missing, and the kubelet has run device plugins on this node ("
                            + KUBELET_CHECKPOINT + " is there)");
                }
                yield HandoverRecord.Known.NONE;
            }
        };
    }

    private static Set<String> devices(JsonNode content) throws IOException {
        JsonShape.object(content, "content", Set.of("devices"), Set.of());
        List<String> ids = JsonShape.texts(content, "devices", "content");
        Set<String> out = new TreeSet<>();
        for (String id : ids) {
            if (id.isBlank() || !out.add(id)) throw new IOException("content.devices: '" + id + "' is blank or named twice");
        }
        return out;
    }

    /** Exactly what the earlier versions wrote (their header, sorted IDs one a line), else lost: it had no checksum. */
    private HandoverRecord legacy(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        List<String> lines = text.lines().toList();
        TreeSet<String> ids = new TreeSet<>();
        if (!lines.isEmpty()) lines.subList(1, lines.size()).forEach(ids::add);
        boolean exact = !lines.isEmpty() && lines.getFirst().equals(LEGACY_HEADER) && ids.stream().allMatch(id -> DEVICE_ID.matcher(id).matches())
                && text.equals(legacyText(ids));
        return exact ? new HandoverRecord.Known(ids) : new HandoverRecord.Lost(legacyFile() + " is not a record as earlier versions wrote it");
    }

    private static String legacyText(TreeSet<String> ids) {
        StringBuilder b = new StringBuilder(LEGACY_HEADER).append('\n');
        ids.forEach(id -> b.append(id).append('\n'));
        return b.toString();
    }

    private static HandoverRecord.Known union(HandoverRecord.Known a, HandoverRecord.Known b) {
        Set<String> all = new TreeSet<>(a.devices());
        all.addAll(b.devices());
        return new HandoverRecord.Known(all);
    }

    /**
     * Writes {@code record} whole, then removes a record an earlier version left beside the sockets.
     *
     * @throws IOException naming the file when it cannot be written
     */
    public void write(HandoverRecord.Known record) throws IOException {
        Path dir = file().getParent();
        if (Files.isSymbolicLink(dir)) throw new IOException("cannot write " + file() + ": " + dir + " is a symbolic link, which the agent never makes");
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            } catch (IOException e) {
                throw new IOException("cannot write " + file() + ": " + AtomicFile.reason(e), e);
            }
        }
        ObjectNode content = StateEnvelope.json().createObjectNode();
        ArrayNode devices = content.putArray("devices");
        new TreeSet<>(record.devices()).forEach(devices::add);
        AtomicFile.write(file(), StateEnvelope.render(KIND, VERSION, content), AtomicFile.WORLD_READABLE);
        if (Files.isRegularFile(legacyFile(), LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.deleteIfExists(legacyFile());
            } catch (IOException e) {
                // the current record is written; the legacy one is merged in at the next load
                log.debug("switch: cannot remove {}: {}", legacyFile(), AtomicFile.reason(e));
            }
        }
    }
}
