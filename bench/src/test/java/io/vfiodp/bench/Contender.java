package io.vfiodp.bench;

import io.vfiodp.bench.floor.FloorPlugin;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** One plugin the comparison starts: how it serves a node's {@code sys} and {@code dev} to a device-plugin directory. */
sealed interface Contender {

    String name();

    List<String> command(Path node, Path devicePluginDir);

    /**
     * Our plugin as shipped: the image directory's launcher (jlink runtime, AOT cache, jvm.options)
     * with the pci.ids it chooses itself (the image ships none: the copy in the jar, unless the
     * machine has a newer one).
     *
     * @param label     what tells this image from others measured in the same run ("" when it is the only one)
     * @param serveArgs what serve gets after the node, socket directory and metrics address ({@code --serve-arg})
     */
    record Ours(Path image, String label, List<String> serveArgs) implements Contender {
        public Ours {
            serveArgs = List.copyOf(serveArgs);
        }

        public Ours(Path image, String label) {
            this(image, label, List.of());
        }

        @Override
        public String name() {
            String name = label.isEmpty() ? "ours" : "ours " + label;
            return serveArgs.isEmpty() ? name : name + " (" + String.join(" ", serveArgs) + ")";
        }

        Path launcher() {
            return image.resolve("bin/vfio-device-plugin");
        }

        @Override
        public List<String> command(Path node, Path devicePluginDir) {
            List<String> command = new ArrayList<>(List.of(launcher().toString(), "serve", "--sysfs-root", node.resolve("sys").toString(),
                    "--dev-root", node.resolve("dev").toString(), "--device-plugin-dir", devicePluginDir.toString(), "--metrics-address",
                    "127.0.0.1:0"));
            command.addAll(serveArgs);
            return List.copyOf(command);
        }
    }

    /**
     * The device plugin the user compares with ({@code --peer-binary}). A plugin on a node reads
     * fixed paths, so it runs in a mount namespace of its own where the bench's node and kubelet
     * are at those paths ({@link NodeAtFixedPaths}); the namespace's start is part of its figures.
     */
    record Peer(String name, Path binary, Path pciIds) implements Contender {
        @Override
        public List<String> command(Path node, Path devicePluginDir) {
            return NodeAtFixedPaths.command(binary, node, devicePluginDir, pciIds);
        }
    }

    /**
     * The floor ({@link FloorPlugin}), started as our launcher starts ours: the image's runtime, its
     * jvm.options and compile commands, its native libraries and two malloc arenas; the floor's own
     * jar, and {@code jvmOptions} (its own AOT cache, or the training run's output).
     *
     * @param resource     the one resource it registers
     * @param vendorDevice the PCI IDs of the functions on vfio-pci it serves, {@code VVVV:DDDD}
     */
    record Floor(Path image, Path jar, List<String> jvmOptions, String resource, String vendorDevice) implements Contender {
        public Floor {
            jvmOptions = List.copyOf(jvmOptions);
        }

        @Override
        public String name() {
            return "floor";
        }

        @Override
        public List<String> command(Path node, Path devicePluginDir) {
            List<String> command = new ArrayList<>(List.of("env", "MALLOC_ARENA_MAX=2", image.resolve("runtime/bin/java").toString(),
                    "@" + image.resolve("lib/jvm.options"), "-XX:CompileCommandFile=" + image.resolve("lib/compile-commands")));
            command.addAll(jvmOptions);
            command.addAll(List.of("-Djava.library.path=" + image.resolve("lib/native"), "-cp", jar.toString(), FloorPlugin.class.getName(),
                    devicePluginDir.toString(), node.resolve("sys").toString(), resource, vendorDevice));
            return List.copyOf(command);
        }
    }
}
