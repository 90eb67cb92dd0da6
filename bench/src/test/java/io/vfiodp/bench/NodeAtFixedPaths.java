package io.vfiodp.bench;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a device plugin that reads the fixed paths of a node (sysfs, {@code /dev/vfio}, the
 * kubelet's device-plugin directory, a pci.ids) on one of the bench's nodes instead: in a mount
 * namespace of its own ({@code unshare --mount}, which needs root), the node's and the bench's
 * directories are bound over those paths, then the plugin is exec'd, so that the process the
 * bench started is the plugin.
 */
final class NodeAtFixedPaths {

    static final Path SYSFS = Path.of("/sys");
    static final Path VFIO = Path.of("/dev/vfio");
    static final Path DEVICE_PLUGINS = Path.of("/var/lib/kubelet/device-plugins");
    /** Where NVIDIA's plugin image keeps its pci.ids. */
    static final Path PCI_IDS = Path.of("/usr/pci.ids");

    /** One path of the node, and where the plugin finds it; sysfs holds mounts of its own, so it is bound with them. */
    private record Bind(Path source, Path target, boolean recursive) {}

    private NodeAtFixedPaths() {}

    /** The command that runs {@code binary} with {@code node} (sys/, dev/vfio), {@code devicePluginDir} and {@code pciIds} at the fixed paths. */
    static List<String> command(Path binary, Path node, Path devicePluginDir, Path pciIds) {
        List<Bind> binds = List.of(new Bind(node.resolve("sys"), SYSFS, true), new Bind(node.resolve("dev/vfio"), VFIO, false),
                new Bind(devicePluginDir, DEVICE_PLUGINS, false), new Bind(pciIds, PCI_IDS, false));
        // the paths reach the shell as its arguments ($1...), never inside the script's text
        StringBuilder script = new StringBuilder();
        List<String> args = new ArrayList<>();
        for (Bind b : binds) {
            args.add(b.source().toString());
            script.append("mount --").append(b.recursive() ? "rbind" : "bind").append(" \"$").append(args.size()).append("\" ")
                    .append(b.target()).append(" && ");
        }
        args.add(binary.toString());
        script.append("exec \"$").append(args.size()).append('"');
        List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c", script.toString(), "sh"));
        command.addAll(args);
        return List.copyOf(command);
    }

    /**
     * Creates what the binds mount over where this machine lacks it (a bind needs an existing
     * target of the same kind); closing removes what this created, deepest first, while it is
     * still empty, so that a bench run leaves the machine's paths as it found them.
     */
    static MountPoints createMountPoints() throws IOException {
        return createMountPoints(List.of(VFIO, DEVICE_PLUGINS), PCI_IDS);
    }

    static MountPoints createMountPoints(List<Path> dirs, Path file) throws IOException {
        List<Path> created = new ArrayList<>();
        try {
            for (Path dir : dirs) createDirectories(dir, created);
            try {
                Files.createFile(file);
                created.add(file);
            } catch (FileAlreadyExistsException e) {
                // a file of the system's, hidden in the namespace only
            }
        } catch (IOException e) {
            new MountPoints(created).close();
            throw e;
        }
        return new MountPoints(created);
    }

    private static void createDirectories(Path dir, List<Path> created) throws IOException {
        if (Files.isDirectory(dir)) return;
        Path parent = dir.getParent();
        if (parent != null) createDirectories(parent, created);
        try {
            Files.createDirectory(dir);
            created.add(dir);
        } catch (FileAlreadyExistsException e) {
            // made meanwhile by someone else: theirs to keep; a file there cannot be bound over by a directory
            if (!Files.isDirectory(dir)) throw e;
        }
    }

    /** The paths {@link #createMountPoints} created, in the order it created them. */
    record MountPoints(List<Path> created) implements AutoCloseable {
        MountPoints {
            created = List.copyOf(created);
        }

        @Override
        public void close() {
            for (Path p : created.reversed()) {
                try {
                    if (Files.isDirectory(p) || Files.size(p) == 0) Files.deleteIfExists(p);
                } catch (IOException e) {
                    // not empty (someone put something there) or gone: left as it is
                }
            }
        }
    }
}
