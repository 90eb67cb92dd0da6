package io.vfiodp.host.vfio;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.NativeLong;
import io.vfiodp.host.libc.NativeLibC;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Asks the VFIO container device ({@code <dev-root>/vfio/vfio}) which API and IOMMU backends
 * the kernel offers, the way QEMU does before it opens a group. Only the container is opened:
 * opening {@code /dev/vfio/<group>} would take the group away from a VM that holds it.
 */
public final class VfioApiProbe {

    /** The kernel's {@code VFIO_API_VERSION}; any other answer is an ABI we do not speak. */
    static final int EXPECTED_API_VERSION = 0;
    // _IO(VFIO_TYPE ';', VFIO_BASE 100 + n) from linux/vfio.h
    static final long VFIO_GET_API_VERSION = 0x3B64;
    static final long VFIO_CHECK_EXTENSION = 0x3B65;
    static final long VFIO_TYPE1_IOMMU = 1;
    static final long VFIO_TYPE1v2_IOMMU = 3;
    private static final int O_RDWR = 02;
    private static final int O_CLOEXEC = 02000000;

    /** The libc calls used, bound lazily so that hosts without them fail the probe, not the class. */
    interface LibC extends Library {
        int open(String path, int flags) throws LastErrorException;

        int ioctl(int fd, NativeLong request, NativeLong arg) throws LastErrorException;

        int close(int fd) throws LastErrorException;

        String strerror(int errnum);
    }

    private VfioApiProbe() {}

    /**
     * Loads JNA and binds glibc now, as {@link #probe} does first: for a start that does it on
     * another core ahead of the probe. Throws as the binding does when there is no libc.
     */
    public static void bindLibc() {
        NativeLibC.load(LibC.class);
    }

    /** Checks {@code <devRoot>/vfio/vfio}; never throws. */
    public static VfioAvailability probe(Path devRoot) {
        Path container = devRoot.resolve("vfio").resolve("vfio");
        if (Files.notExists(container, LinkOption.NOFOLLOW_LINKS)) {
            return new VfioAvailability.Unavailable(container + " does not exist (VFIO not running, or /dev not mounted)");
        }
        LibC libc;
        try {
            libc = NativeLibC.load(LibC.class);
        } catch (UnsatisfiedLinkError e) {
            return new VfioAvailability.Unavailable("cannot load libc to issue VFIO ioctls: " + e.getMessage());
        }
        int fd;
        try {
            fd = libc.open(container.toString(), O_RDWR | O_CLOEXEC);
        } catch (LastErrorException e) {
            return new VfioAvailability.Unavailable("cannot open " + container + ": " + errno(libc, e));
        }
        try {
            int version;
            try {
                version = libc.ioctl(fd, new NativeLong(VFIO_GET_API_VERSION), new NativeLong(0));
            } catch (LastErrorException e) {
                return new VfioAvailability.Unavailable(container + ": VFIO_GET_API_VERSION failed: " + errno(libc, e));
            }
            if (version != EXPECTED_API_VERSION) {
                return new VfioAvailability.Unavailable(container + ": VFIO API version " + version + ", expected " + EXPECTED_API_VERSION);
            }
            boolean type1 = extension(libc, fd, VFIO_TYPE1_IOMMU);
            boolean type1v2 = extension(libc, fd, VFIO_TYPE1v2_IOMMU);
            if (!type1 && !type1v2) {
                return new VfioAvailability.Unavailable(container + ": no type1 IOMMU backend (is the vfio_iommu_type1 module loaded?)");
            }
            return new VfioAvailability.Available(version, type1, type1v2);
        } catch (LastErrorException e) {
            return new VfioAvailability.Unavailable(container + ": VFIO_CHECK_EXTENSION failed: " + errno(libc, e));
        } finally {
            try {
                libc.close(fd);
            } catch (LastErrorException e) {
                // Nothing was written through this descriptor; a failed close loses nothing.
            }
        }
    }

    private static boolean extension(LibC libc, int fd, long extension) {
        return libc.ioctl(fd, new NativeLong(VFIO_CHECK_EXTENSION), new NativeLong(extension)) > 0;
    }

    private static String errno(LibC libc, LastErrorException e) {
        return "errno " + e.getErrorCode() + " (" + libc.strerror(e.getErrorCode()) + ")";
    }
}
