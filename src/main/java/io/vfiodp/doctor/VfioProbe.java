package io.vfiodp.doctor;

import io.vfiodp.host.Reading;
import io.vfiodp.host.VfioApiCheck;
import io.vfiodp.host.VfioAvailability;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** Asks {@code <dev-root>/vfio/vfio} the VFIO ioctls; tests give canned answers (a fixture's device nodes are plain files). */
@FunctionalInterface
public interface VfioProbe {

    Reading<VfioAvailability> ask(Path devRoot);

    /**
     * {@link VfioApiCheck}, when this process may open the container: only root may, and a
     * refusal says nothing about the node.
     */
    static VfioProbe ioctls() {
        return devRoot -> {
            Path container = devRoot.resolve("vfio").resolve("vfio");
            if (Files.exists(container, LinkOption.NOFOLLOW_LINKS) && !Files.isWritable(container)) {
                return new Reading.Unreadable<>(container.toString(), "permission denied (only root may open it)");
            }
            return new Reading.Found<>(VfioApiCheck.check(devRoot));
        };
    }
}
