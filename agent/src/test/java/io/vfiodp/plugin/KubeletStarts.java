package io.vfiodp.plugin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What the kubelet's device manager does to its directory when it starts
 * ({@code CleanupPluginDirectory}, {@code pkg/kubelet/cm/devicemanager/manager.go}).
 */
public final class KubeletStarts {

    private KubeletStarts() {}

    /** Kubelets up to 1.32: every entry but directories and its checkpoint, {@code kubelet_internal_checkpoint}, goes. */
    public static void upTo132(Path pluginDir) throws IOException {
        try (Stream<Path> entries = Files.list(pluginDir)) {
            for (Path p : entries.toList()) {
                if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) && !p.getFileName().toString().equals("kubelet_internal_checkpoint")) {
                    Files.delete(p);
                }
            }
        }
    }
}
