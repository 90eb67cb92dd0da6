package io.vfiodp.host.uevent;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import io.vfiodp.host.libc.NativeLibC;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The kernel's uevents, received on a {@code NETLINK_KOBJECT_UEVENT} socket (through JNA): every
 * device added, removed, bound, unbound or changed. Only messages the kernel itself sent are
 * taken (netlink port 0); udev's re-broadcasts are another group, not joined.
 *
 * <p>One thread receives ({@link #receive()} blocks); any thread may {@link #wakeup()} it, and the
 * receiving thread closes the socket when it is done, so that no descriptor is closed under a
 * call that still uses it.
 *
 * <p>Where uevents cannot be received, {@link #open()} says why once; the caller then relies on
 * periodic rescans. The kernel broadcasts uevents to the network namespaces owned by the initial
 * user namespace only (lib/kobject_uevent.c, since Linux 4.18): a pod in its own network
 * namespace receives them, a pod in a user namespace ({@code hostUsers: false}) does not.
 */
public final class UeventSocket implements UeventSource {

    static final int AF_NETLINK = 16;
    static final int SOCK_RAW = 3;
    static final int SOCK_CLOEXEC = 02000000;
    static final int NETLINK_KOBJECT_UEVENT = 15;
    static final int KERNEL_GROUP = 1;
    static final int SOL_SOCKET = 1;
    static final int SO_RCVBUF = 8;
    static final int SO_RCVBUFFORCE = 33;
    static final int EFD_NONBLOCK = 04000;
    static final int EFD_CLOEXEC = 02000000;
    static final int MSG_DONTWAIT = 0x40;
    static final short POLLIN = 1;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int ENOBUFS = 105;
    static final int SOCKADDR_NL_BYTES = 12;
    /** Room for bursts (a GPU server's SR-IOV enable is hundreds of events); the kernel caps it at rmem_max without CAP_NET_ADMIN. */
    static final int RECEIVE_BUFFER_BYTES = 4 << 20;

    /** The libc calls used. */
    interface LibC extends Library {
        int socket(int domain, int type, int protocol) throws LastErrorException;

        int setsockopt(int fd, int level, int name, int[] value, int length) throws LastErrorException;

        int bind(int fd, Pointer address, int length) throws LastErrorException;

        int eventfd(int initial, int flags) throws LastErrorException;

        int poll(Pointer fds, NativeLong count, int timeoutMillis) throws LastErrorException;

        NativeLong recvfrom(int fd, Pointer buffer, NativeLong length, int flags, Pointer from, int[] fromLength)
                throws LastErrorException;

        NativeLong write(int fd, long[] value, NativeLong count) throws LastErrorException;

        NativeLong read(int fd, long[] value, NativeLong count) throws LastErrorException;

        int open(String path, int flags) throws LastErrorException;

        int ioctl(int fd, NativeLong request, NativeLong arg) throws LastErrorException;

        int close(int fd) throws LastErrorException;

        String strerror(int errnum);
    }

    /** Opening the socket: done, or why uevents cannot be had here. */
    public sealed interface Opening {
        record Opened(UeventSource socket) implements Opening {}

        record Unavailable(String reason) implements Opening {
            public Unavailable {
                if (reason == null || reason.isBlank()) throw new IllegalArgumentException("unavailable needs a reason");
            }

            /** The one line to log. */
            public String describe() {
                return "kernel uevents unavailable: " + reason + "; device changes are seen by the periodic rescan only";
            }
        }
    }

    private final LibC libc;
    private final int socket;
    private final int wakeFd;
    private final Memory buffer = new Memory(Uevent.MAX_MESSAGE_BYTES);
    private final Memory sender = new Memory(SOCKADDR_NL_BYTES);
    private final Memory pollFds = new Memory(16);
    private final AtomicBoolean closed = new AtomicBoolean();

    private UeventSocket(LibC libc, int socket, int wakeFd) {
        this.libc = libc;
        this.socket = socket;
        this.wakeFd = wakeFd;
    }

    /** Opens a socket on the kernel's uevent group, or says why not. */
    public static Opening open() {
        LibC libc;
        try {
            libc = NativeLibC.load(LibC.class);
        } catch (UnsatisfiedLinkError e) {
            return new Opening.Unavailable("cannot load libc for the netlink socket: " + e.getMessage());
        }
        return open(libc, Path.of("/proc/self"));
    }

    /** {@link #open()} with the given libc calls and {@code /proc/self}: what tests swap. */
    static Opening open(LibC libc, Path procSelf) {
        Optional<String> elsewhere = UserNamespaces.whyNoUevents(libc, procSelf);
        if (elsewhere.isPresent()) return new Opening.Unavailable(elsewhere.get());
        int fd;
        try {
            fd = libc.socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
        } catch (LastErrorException e) {
            return new Opening.Unavailable("socket(AF_NETLINK, NETLINK_KOBJECT_UEVENT) failed: " + errno(libc, e));
        }
        try {
            receiveBuffer(libc, fd);
            Memory address = new Memory(SOCKADDR_NL_BYTES);
            address.clear();
            address.setShort(0, (short) AF_NETLINK);
            address.setInt(8, KERNEL_GROUP);
            libc.bind(fd, address, SOCKADDR_NL_BYTES);
        } catch (LastErrorException e) {
            closeQuietly(libc, fd);
            return new Opening.Unavailable("cannot join the kernel's uevent group: bind failed: " + errno(libc, e));
        }
        int wake;
        try {
            wake = libc.eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (LastErrorException e) {
            closeQuietly(libc, fd);
            return new Opening.Unavailable("eventfd failed: " + errno(libc, e));
        }
        return new Opening.Opened(new UeventSocket(libc, fd, wake));
    }

    private static void receiveBuffer(LibC libc, int fd) {
        int[] size = {RECEIVE_BUFFER_BYTES};
        try {
            libc.setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, size, 4);
        } catch (LastErrorException needsCapNetAdmin) {
            try {
                libc.setsockopt(fd, SOL_SOCKET, SO_RCVBUF, size, 4);
            } catch (LastErrorException e) {
                // the default buffer still works; an overflow is reported when it happens
            }
        }
    }

    /**
     * Blocks until a message arrives or {@link #wakeup()} is called. Called from one thread only.
     *
     * @throws IllegalStateException when the socket is closed or the kernel refuses the call
     */
    @Override
    public UeventReceipt receive() {
        return receive(-1);
    }

    /**
     * As {@link #receive()}, but returns {@link UeventReceipt.Idle} when nothing arrived within
     * {@code maxWait}: how a caller that coalesces a burst of events learns that the burst is over.
     */
    @Override
    public UeventReceipt receive(Duration maxWait) {
        return receive((int) Math.min(Integer.MAX_VALUE, Math.max(0, maxWait.toMillis())));
    }

    /** @param timeoutMillis as poll(2): -1 waits for ever */
    private UeventReceipt receive(int timeoutMillis) {
        if (closed.get()) throw new IllegalStateException("uevent socket is closed");
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMillis));
        while (true) {
            UeventReceipt received = tryReceive();
            if (received != null) return received;
            if (wokenUp()) return new UeventReceipt.Woken();
            pollFds.setInt(0, socket);
            pollFds.setShort(4, POLLIN);
            pollFds.setShort(6, (short) 0);
            pollFds.setInt(8, wakeFd);
            pollFds.setShort(12, POLLIN);
            pollFds.setShort(14, (short) 0);
            int wait = timeoutMillis;
            if (timeoutMillis >= 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return new UeventReceipt.Idle();
                wait = (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left));
            }
            try {
                libc.poll(pollFds, new NativeLong(2), wait);
            } catch (LastErrorException e) {
                if (e.getErrorCode() != EINTR) throw new IllegalStateException("poll on the uevent socket failed: " + errno(libc, e));
            }
        }
    }

    /** One message when one is waiting, else null. */
    private UeventReceipt tryReceive() {
        int[] senderLength = {SOCKADDR_NL_BYTES};
        long n;
        try {
            n = libc.recvfrom(socket, buffer, new NativeLong(buffer.size()), MSG_DONTWAIT, sender, senderLength).longValue();
        } catch (LastErrorException e) {
            return switch (e.getErrorCode()) {
                case EAGAIN, EINTR -> null;
                case ENOBUFS -> new UeventReceipt.Overflow();
                default -> throw new IllegalStateException("receive on the uevent socket failed: " + errno(libc, e));
            };
        }
        int port = sender.getInt(4);
        if (port != 0) return new UeventReceipt.Dropped("message from netlink port " + port + ", not from the kernel");
        byte[] bytes = buffer.getByteArray(0, (int) Math.min(n, buffer.size()));
        return Uevent.parse(bytes, bytes.length);
    }

    private boolean wokenUp() {
        long[] count = new long[1];
        try {
            libc.read(wakeFd, count, new NativeLong(8));
            return true;
        } catch (LastErrorException e) {
            if (e.getErrorCode() == EAGAIN) return false;
            throw new IllegalStateException("read of the uevent wake-up descriptor failed: " + errno(libc, e));
        }
    }

    /**
     * Makes the current or next {@link #receive()} return {@link UeventReceipt.Woken}. Any thread;
     * nothing after {@link #close()} (the lock keeps a closed, reused descriptor from being written).
     */
    @Override
    public synchronized void wakeup() {
        if (closed.get()) return;
        try {
            libc.write(wakeFd, new long[] {1}, new NativeLong(8));
        } catch (LastErrorException e) {
            // EAGAIN: the counter is full, so a wake-up is pending anyway
            if (e.getErrorCode() != EAGAIN) throw new IllegalStateException("uevent wake-up failed: " + errno(libc, e));
        }
    }

    /** Closes the socket; by the receiving thread, after its last {@link #receive()}. */
    @Override
    public synchronized void close() {
        if (!closed.compareAndSet(false, true)) return;
        closeQuietly(libc, socket);
        closeQuietly(libc, wakeFd);
    }

    private static void closeQuietly(LibC libc, int fd) {
        try {
            libc.close(fd);
        } catch (LastErrorException e) {
            // nothing was written through it; nothing is lost
        }
    }

    private static String errno(LibC libc, LastErrorException e) {
        return "errno " + e.getErrorCode() + " (" + Objects.requireNonNullElse(libc.strerror(e.getErrorCode()), "?") + ")";
    }
}
