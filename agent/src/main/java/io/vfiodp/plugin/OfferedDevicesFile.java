package io.vfiodp.plugin;

import io.vfiodp.node.OfferRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where the {@link OfferRecord} is kept across restarts: {@value #FILE} in the device-plugin
 * directory (the one directory serve always writes; the kubelet removes only sockets there), one
 * device ID a line. Written whole to a temporary file, synced, then renamed over the old one.
 *
 * <p>No file is no device, unless the kubelet has run device plugins here (its checkpoint,
 * {@value #KUBELET_CHECKPOINT}, is there): then the record was lost, or a version that kept none
 * ran, and any device may be held.
 */
public final class OfferedDevicesFile {

    public static final String FILE = "vfio-dp-offered-devices";
    static final String KUBELET_CHECKPOINT = "kubelet_internal_checkpoint";
    private static final String HEADER = "# devices the device plugins of vfio-device-plugin offered on this node that no pod has been"
            + " shown not to hold since (PodResources); one ID a line";

    private final Path dir;

    public OfferedDevicesFile(Path devicePluginDir) {
        this.dir = devicePluginDir;
    }

    public Path file() {
        return dir.resolve(FILE);
    }

    /** @throws IOException naming the file when it cannot be read */
    public OfferRecord read() throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file(), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Files.exists(dir.resolve(KUBELET_CHECKPOINT)) ? new OfferRecord.Lost() : OfferRecord.Known.NONE;
        } catch (IOException e) {
            throw new IOException("cannot read " + file() + ": " + e.getMessage(), e);
        }
        Set<String> devices = new HashSet<>();
        for (String line : lines) {
            String id = line.strip();
            if (!id.isEmpty() && !id.startsWith("#")) devices.add(id);
        }
        return new OfferRecord.Known(devices);
    }

    /** @throws IOException naming the file when it cannot be written */
    public void write(OfferRecord.Known record) throws IOException {
        StringBuilder b = new StringBuilder(HEADER).append('\n');
        for (String id : new TreeSet<>(record.devices())) b.append(id).append('\n');
        Path tmp = dir.resolve("." + FILE + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
            Files.move(tmp, file(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the write's own failure is the one to report
            }
            throw new IOException("cannot write " + file() + ": " + e.getMessage(), e);
        }
    }
}
