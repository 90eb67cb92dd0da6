package io.vfiodp.doctor;

import io.vfiodp.host.Reading;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The kubelet's directories as this process sees them: where device plugins and DRA drivers
 * register, and where container runtimes read CDI specs. Links are followed: an operator may
 * have moved the kubelet's root.
 *
 * @param paths            where they were looked for
 * @param pluginDirWritable whether this process may create sockets in the device-plugin directory
 */
public record KubeletFacts(KubeletPaths paths, Reading<EntryKind> devicePluginDir, Reading<EntryKind> kubeletSock,
                           boolean pluginDirWritable, Reading<EntryKind> registryDir, Reading<EntryKind> cdiDir) {

    /** What a path is. */
    public enum EntryKind { DIRECTORY, SOCKET, OTHER }

    public KubeletFacts {
        Objects.requireNonNull(paths, "paths");
        Objects.requireNonNull(devicePluginDir, "devicePluginDir");
        Objects.requireNonNull(kubeletSock, "kubeletSock");
        Objects.requireNonNull(registryDir, "registryDir");
        Objects.requireNonNull(cdiDir, "cdiDir");
    }

    static KubeletFacts read(KubeletPaths paths) {
        return new KubeletFacts(paths, kind(paths.devicePluginDir()), kind(paths.devicePluginDir().resolve("kubelet.sock")),
                Files.isDirectory(paths.devicePluginDir()) && Files.isWritable(paths.devicePluginDir()),
                kind(paths.registryDir()), kind(paths.cdiDir()));
    }

    static Reading<EntryKind> kind(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode");
            return new Reading.Found<>(switch (mode & 0170000) {
                case 0040000 -> EntryKind.DIRECTORY;
                case 0140000 -> EntryKind.SOCKET;
                default -> EntryKind.OTHER;
            });
        } catch (NoSuchFileException e) {
            return new Reading.Absent<>(path.toString());
        } catch (AccessDeniedException e) {
            return new Reading.Unreadable<>(path.toString(), "permission denied");
        } catch (IOException | UnsupportedOperationException e) {
            return new Reading.Unreadable<>(path.toString(), e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        }
    }
}
