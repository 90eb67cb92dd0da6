package io.vfiodp.bench;

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
     * NVIDIA's kubevirt-gpu-device-plugin: it reads fixed paths, so the shared run script binds the
     * node over them in a mount namespace of its own and execs the binary (its pid is the plugin's).
     * Its pci.ids (/usr/pci.ids in its image) is the copy in our jar.
     */
    record Nvidia(Path runScript, Path binary, Path pciIds) implements Contender {
        @Override
        public String name() {
            return "NVIDIA v1.6.0";
        }

        @Override
        public List<String> command(Path node, Path devicePluginDir) {
            return List.of("bash", runScript.toString(), binary.toString(), node.toString(), devicePluginDir.toString(), pciIds.toString());
        }
    }
}
