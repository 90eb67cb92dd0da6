package io.vfiodp.doctor;

import io.vfiodp.host.Reading;
import io.vfiodp.host.vfio.VfioApiProbe;
import io.vfiodp.host.vfio.VfioAvailability;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/** Asks {@code <dev-root>/vfio/vfio} the VFIO ioctls; tests give canned answers (a fixture's device nodes are plain files). */
@FunctionalInterface
public interface VfioProbe {

    Reading<VfioAvailability> ask(Path devRoot);

    /** {@link VfioApiProbe}, when this process may open the container at all (see {@link #answer}). */
    static VfioProbe ioctls() {
        return devRoot -> {
            Optional<String> refused = refused(container(devRoot));
            if (refused.isPresent()) return new Reading.Unreadable<>(container(devRoot).toString(), refused.get());
            return new Reading.Found<>(VfioApiProbe.probe(devRoot));
        };
    }

    /**
     * What {@code answered} (serve's start-up check) says of the node: nothing when this process may
     * not open the container. Only root may, and a pod's device cgroup keeps even root out
     * ({@code deploy/base} mounts the directory, not the device): that is no fact about the node.
     */
    static Reading<VfioAvailability> answer(VfioAvailability answered, Path devRoot) {
        if (answered instanceof VfioAvailability.Available) return new Reading.Found<>(answered);
        Optional<String> refused = refused(container(devRoot));
        return refused.isPresent() ? new Reading.Unreadable<>(container(devRoot).toString(), refused.get()) : new Reading.Found<>(answered);
    }

    private static Path container(Path devRoot) {
        return devRoot.resolve("vfio").resolve("vfio");
    }

    /** Why this process may not open {@code container}, when it exists and may not; opening it creates an empty container, nothing else. */
    private static Optional<String> refused(Path container) {
        if (!Files.exists(container, LinkOption.NOFOLLOW_LINKS)) return Optional.empty();
        try (FileChannel ignored = FileChannel.open(container, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return Optional.empty();
        } catch (AccessDeniedException e) {
            return Optional.of("this process may not open it (permission denied: only root may)");
        } catch (FileSystemException e) {
            if ("Operation not permitted".equals(e.getReason())) {
                return Optional.of("this process may not open it (operation not permitted: a pod's device cgroup)");
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
