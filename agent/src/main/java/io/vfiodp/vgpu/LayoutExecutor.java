package io.vfiodp.vgpu;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Performs planned writes through the {@link SysfsWriter}, one after another. A refused write is
 * one log line and one Warning Event naming the GPU and type, and the next write proceeds. Every
 * change of ownership is saved to the {@link StateFile} <em>before</em> the write that makes a
 * vGPU ours (so a crash right after it cannot leave an mdev we made but do not know), and after
 * a write that removes one.
 *
 * <p>Kernel facts relied on (Documentation/ABI/testing/sysfs-bus-vfio-mdev): writing a UUID to
 * {@code mdev_supported_types/<type>/create} creates the mdev, writing {@code 1} to
 * {@code bus/mdev/devices/<uuid>/remove} destroys it; a refusal comes back as the write's errno
 * (EBUSY for a device in use, ENOSPC or EDQUOT-like errors when the GPU has no room, EINVAL for a
 * bad UUID). NVIDIA's vendor-specific VFIO (Linux 6.8+, NVIDIA vGPU 17+ "KVM hypervisor that
 * uses a vendor-specific VFIO framework"): writing a numeric type id from the VF's
 * {@code nvidia/creatable_vgpu_types} to {@code nvidia/current_vgpu_type} places the vGPU, writing
 * {@code 0} removes it; a type that is not creatable any more is refused with an error.
 */
public final class LayoutExecutor {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.vgpu");

    private final Path sysfsRoot;
    private final SysfsWriter writer;
    private final StateFile stateFile;
    private final LayoutEvents events;

    public LayoutExecutor(Path sysfsRoot, SysfsWriter writer, StateFile stateFile, LayoutEvents events) {
        this.sysfsRoot = sysfsRoot;
        this.writer = writer;
        this.stateFile = stateFile;
        this.events = events;
    }

    /** What a run did. */
    public record Result(OwnedDevices owned, int succeeded, List<String> failures) {
        public Result {
            failures = List.copyOf(failures);
        }
    }

    /** The state file could not be written: no further sysfs write is made until it can be. */
    public static final class StateUnwritable extends Exception {
        StateUnwritable(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    public Result execute(List<PlannedWrite> plan, OwnedDevices owned) throws StateUnwritable {
        int ok = 0;
        List<String> failures = new ArrayList<>();
        for (PlannedWrite w : plan) {
            switch (w) {
                case PlannedWrite.CreateMdev c -> {
                    owned = save(owned.withMdev(c.uuid()));
                    if (write(w, sysfsRoot.resolve("bus/pci/devices").resolve(c.parent().toString())
                            .resolve("mdev_supported_types").resolve(c.typeId()).resolve("create"), c.uuid(), failures)) {
                        ok++;
                    } else {
                        owned = save(owned.withoutMdev(c.uuid()));
                    }
                }
                case PlannedWrite.RemoveMdev r -> {
                    if (write(w, sysfsRoot.resolve("bus/mdev/devices").resolve(r.uuid()).resolve("remove"), "1", failures)) {
                        ok++;
                        owned = save(owned.withoutMdev(r.uuid()));
                    }
                }
                case PlannedWrite.SetVgpuType s -> {
                    owned = save(owned.withVf(s.vf()));
                    if (write(w, currentType(s.vf().toString()), Integer.toString(s.typeId()), failures)) {
                        ok++;
                    } else {
                        owned = save(owned.withoutVf(s.vf()));
                    }
                }
                case PlannedWrite.ClearVgpuType c -> {
                    if (write(w, currentType(c.vf().toString()), "0", failures)) {
                        ok++;
                        owned = save(owned.withoutVf(c.vf()));
                    }
                }
            }
        }
        return new Result(owned, ok, failures);
    }

    private Path currentType(String vf) {
        return sysfsRoot.resolve("bus/pci/devices").resolve(vf).resolve("nvidia/current_vgpu_type");
    }

    private boolean write(PlannedWrite w, Path file, String value, List<String> failures) {
        try {
            writer.write(file, value);
            log.info("vGPU layout: {}", w.describe());
            return true;
        } catch (IOException e) {
            String message = "GPU " + w.gpu() + ", type " + w.typeName() + ": " + w.describe() + " failed: writing "
                    + value + " to " + sysfsRoot.relativize(file) + ": " + reason(e);
            log.warn("vGPU layout: {}", message);
            events.warn("VgpuLayoutWriteFailed", message);
            failures.add(message);
            return false;
        }
    }

    private static String reason(IOException e) {
        // FileSystemException's message repeats the path; its reason is the errno text.
        if (e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null) return fse.getReason();
        return e.getMessage();
    }

    private OwnedDevices save(OwnedDevices owned) throws StateUnwritable {
        try {
            stateFile.write(owned);
            return owned;
        } catch (IOException e) {
            throw new StateUnwritable(e);
        }
    }
}
