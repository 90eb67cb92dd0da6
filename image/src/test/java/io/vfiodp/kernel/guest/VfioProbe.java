package io.vfiodp.kernel.guest;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import java.util.Arrays;

/**
 * Runs inside the real-kernel tests' guest and asks VFIO what QEMU would ask, printing one line
 * per answer for the host side to check:
 *
 * <pre>
 *   status GROUP...                  group N: viable | not viable      (VFIO_GROUP_GET_STATUS)
 *   device GROUP ADDRESS... [-- OTHER_GROUP...]
 *       opens /dev/vfio/vfio and /dev/vfio/GROUP, sets the group's container and the type1
 *       IOMMU, gets a device fd per ADDRESS (VFIO_GROUP_GET_DEVICE_FD) and asks it for its info;
 *       then tries to open each /dev/vfio/OTHER_GROUP and says what happened
 * </pre>
 *
 * Exit status 0 when every step of {@code device} worked (the other groups may fail: that is what
 * is being checked), 1 otherwise.
 */
public final class VfioProbe {

    // _IO(';', 100 + n) from linux/vfio.h
    static final long VFIO_GET_API_VERSION = 0x3B64;
    static final long VFIO_CHECK_EXTENSION = 0x3B65;
    static final long VFIO_SET_IOMMU = 0x3B66;
    static final long VFIO_GROUP_GET_STATUS = 0x3B67;
    static final long VFIO_GROUP_SET_CONTAINER = 0x3B68;
    static final long VFIO_GROUP_GET_DEVICE_FD = 0x3B6A;
    static final long VFIO_DEVICE_GET_INFO = 0x3B6B;
    static final int VFIO_TYPE1_IOMMU = 1;
    static final int VFIO_TYPE1v2_IOMMU = 3;
    static final int VFIO_GROUP_FLAGS_VIABLE = 1;
    static final int VFIO_DEVICE_FLAGS_PCI = 1 << 1;
    static final int O_RDWR = 02;

    interface LibC extends Library {
        int open(String path, int flags) throws LastErrorException;

        int ioctl(int fd, NativeLong request, Pointer arg) throws LastErrorException;

        int ioctl(int fd, NativeLong request, NativeLong arg) throws LastErrorException;

        int close(int fd) throws LastErrorException;

        String strerror(int errnum);
    }

    private final LibC libc = Native.load("c", LibC.class);

    public static void main(String[] args) {
        VfioProbe probe = new VfioProbe();
        boolean ok = switch (args.length == 0 ? "" : args[0]) {
            case "status" -> probe.status(Arrays.copyOfRange(args, 1, args.length));
            case "device" -> probe.device(Arrays.copyOfRange(args, 1, args.length));
            default -> {
                System.out.println("usage: VfioProbe status GROUP... | device GROUP ADDRESS... [-- OTHER_GROUP...]");
                yield false;
            }
        };
        System.exit(ok ? 0 : 1);
    }

    private boolean status(String[] groups) {
        boolean ok = true;
        for (String g : groups) {
            try {
                int fd = libc.open("/dev/vfio/" + g, O_RDWR);
                try {
                    System.out.println("group " + g + ": " + (viable(fd) ? "viable" : "not viable"));
                } finally {
                    libc.close(fd);
                }
            } catch (LastErrorException e) {
                System.out.println("group " + g + ": " + errno(e));
                ok = false;
            }
        }
        return ok;
    }

    private boolean viable(int groupFd) {
        Memory status = new Memory(8);
        status.setInt(0, 8); // argsz
        status.setInt(4, 0);
        libc.ioctl(groupFd, new NativeLong(VFIO_GROUP_GET_STATUS), status);
        return (status.getInt(4) & VFIO_GROUP_FLAGS_VIABLE) != 0;
    }

    private boolean device(String[] args) {
        int split = Arrays.asList(args).indexOf("--");
        String[] mine = split < 0 ? args : Arrays.copyOfRange(args, 0, split);
        String[] others = split < 0 ? new String[0] : Arrays.copyOfRange(args, split + 1, args.length);
        String group = mine[0];
        boolean ok = true;
        try {
            int container = libc.open("/dev/vfio/vfio", O_RDWR);
            System.out.println("container: API version " + libc.ioctl(container, new NativeLong(VFIO_GET_API_VERSION), new NativeLong(0)));
            int groupFd = libc.open("/dev/vfio/" + group, O_RDWR);
            System.out.println("group " + group + ": " + (viable(groupFd) ? "viable" : "not viable"));
            Memory fd = new Memory(4);
            fd.setInt(0, container);
            libc.ioctl(groupFd, new NativeLong(VFIO_GROUP_SET_CONTAINER), fd);
            System.out.println("group " + group + ": container set");
            int type = libc.ioctl(container, new NativeLong(VFIO_CHECK_EXTENSION), new NativeLong(VFIO_TYPE1v2_IOMMU)) > 0
                    ? VFIO_TYPE1v2_IOMMU : VFIO_TYPE1_IOMMU;
            libc.ioctl(container, new NativeLong(VFIO_SET_IOMMU), new NativeLong(type));
            System.out.println("container: IOMMU type " + (type == VFIO_TYPE1v2_IOMMU ? "type1v2" : "type1") + " set");
            for (int i = 1; i < mine.length; i++) ok &= deviceFd(groupFd, mine[i]);
        } catch (LastErrorException e) {
            System.out.println("failed: " + errno(e));
            ok = false;
        }
        for (String other : others) {
            try {
                int fd = libc.open("/dev/vfio/" + other, O_RDWR);
                System.out.println("other group " + other + ": opened");
                libc.close(fd);
            } catch (LastErrorException e) {
                System.out.println("other group " + other + ": " + errno(e));
            }
        }
        return ok;
    }

    private boolean deviceFd(int groupFd, String address) {
        Memory name = new Memory(address.length() + 1);
        name.setString(0, address, "US-ASCII");
        try {
            int device = libc.ioctl(groupFd, new NativeLong(VFIO_GROUP_GET_DEVICE_FD), name);
            Memory info = new Memory(20); // argsz, flags, num_regions, num_irqs, cap_offset
            info.clear();
            info.setInt(0, 20);
            libc.ioctl(device, new NativeLong(VFIO_DEVICE_GET_INFO), info);
            int flags = info.getInt(4);
            System.out.println("device " + address + ": fd " + ((flags & VFIO_DEVICE_FLAGS_PCI) != 0 ? "pci" : "not pci")
                    + " regions " + info.getInt(8) + " irqs " + info.getInt(12));
            libc.close(device);
            return true;
        } catch (LastErrorException e) {
            System.out.println("device " + address + ": " + errno(e));
            return false;
        }
    }

    private String errno(LastErrorException e) {
        return "errno " + e.getErrorCode() + " (" + libc.strerror(e.getErrorCode()) + ")";
    }
}
