package io.vfiodp.host.uevent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The uevent socket: a real one on this machine (opened, woken, closed), and the kernel's answers
 * a test cannot provoke (no permission, a full buffer, a sender that is not the kernel, a user
 * namespace) through libc calls that answer as the kernel would.
 */
class UeventSocketTest {

    @TempDir Path proc;

    @Test
    void aRealSocketOpensAndAnotherThreadWakesItsReceiver() throws Exception {
        UeventSocket.Opening opening = UeventSocket.open();
        assertThat(opening).as("uevents on this machine (init user namespace)").isInstanceOf(UeventSocket.Opening.Opened.class);
        try (UeventSource socket = ((UeventSocket.Opening.Opened) opening).socket()) {
            CompletableFuture<UeventReceipt> received = new CompletableFuture<>();
            Thread receiver = new Thread(() -> {
                // kernel events of this machine may come first: wait for the wake-up itself
                UeventReceipt r;
                do {
                    r = socket.receive();
                } while (!(r instanceof UeventReceipt.Woken));
                received.complete(r);
            }, "uevent-test-receiver");
            receiver.start();
            socket.wakeup();
            assertThat(received.get(10, TimeUnit.SECONDS)).isEqualTo(new UeventReceipt.Woken());
            receiver.join(10_000);
            assertThat(receiver.isAlive()).isFalse();
        }
    }

    @Test
    void aRealSocketThatStaysQuietIsIdleAfterTheWait() {
        try (UeventSource socket = ((UeventSocket.Opening.Opened) UeventSocket.open()).socket()) {
            UeventReceipt r;
            do {
                r = socket.receive(Duration.ofMillis(50)); // this machine's own events first, if any
            } while (r instanceof UeventReceipt.Event);
            assertThat(r).isEqualTo(new UeventReceipt.Idle());
        }
    }

    @Test
    void aTimedReceiveWithNothingWaitingIsIdleWithoutBlocking() {
        assertThat(opened(new FakeLibC()).receive(Duration.ZERO)).isEqualTo(new UeventReceipt.Idle());
    }

    @Test
    void aWakeUpEndsATimedReceiveToo() {
        UeventSource socket = opened(new FakeLibC());
        socket.wakeup();

        assertThat(socket.receive(Duration.ofMinutes(1))).isEqualTo(new UeventReceipt.Woken());
    }

    @Test
    void aClosedSocketRefusesToReceive() {
        UeventSource socket = opened(new FakeLibC());
        socket.close();
        socket.wakeup(); // a late wake-up after close does nothing

        assertThatThrownBy(socket::receive).isInstanceOf(IllegalStateException.class).hasMessage("uevent socket is closed");
    }

    @Test
    void withoutPermissionTheSocketIsUnavailableAndSaysWhy() {
        FakeLibC libc = new FakeLibC();
        libc.socketErrno = 1;

        UeventSocket.Opening opening = UeventSocket.open(libc, proc);

        assertThat(opening).isEqualTo(new UeventSocket.Opening.Unavailable(
                "socket(AF_NETLINK, NETLINK_KOBJECT_UEVENT) failed: errno 1 (Operation not permitted)"));
        assertThat(((UeventSocket.Opening.Unavailable) opening).describe()).isEqualTo("kernel uevents unavailable: "
                + "socket(AF_NETLINK, NETLINK_KOBJECT_UEVENT) failed: errno 1 (Operation not permitted);"
                + " device changes are seen by the periodic rescan only");
    }

    @Test
    void aRefusedBindClosesTheSocketAndIsUnavailable() {
        FakeLibC libc = new FakeLibC();
        libc.bindErrno = 1;

        assertThat(UeventSocket.open(libc, proc)).isEqualTo(new UeventSocket.Opening.Unavailable(
                "cannot join the kernel's uevent group: bind failed: errno 1 (Operation not permitted)"));
        assertThat(libc.closed).containsExactly(FakeLibC.SOCKET_FD);
    }

    @Test
    void aMessageFromAnotherProcessIsDropped() {
        FakeLibC libc = new FakeLibC();
        libc.messages.add(new FakeLibC.Message(4242, UeventTest.PCI_BIND));

        assertThat(opened(libc).receive()).isEqualTo(new UeventReceipt.Dropped("message from netlink port 4242, not from the kernel"));
    }

    @Test
    void aMessageFromTheKernelIsAnEvent() {
        FakeLibC libc = new FakeLibC();
        libc.messages.add(new FakeLibC.Message(0, UeventTest.PCI_BIND));

        assertThat(opened(libc).receive()).isEqualTo(UeventTest.parse(UeventTest.PCI_BIND));
    }

    @Test
    void aFullReceiveBufferIsAnOverflow() {
        FakeLibC libc = new FakeLibC();
        libc.messages.add(new FakeLibC.Message(-105, new byte[0]));

        assertThat(opened(libc).receive()).isEqualTo(new UeventReceipt.Overflow());
    }

    @Test
    void aNetworkNamespaceOfAnotherUserNamespaceGetsNoUevents() throws Exception {
        userNamespace("0 100000 65536", "user:[4026532300]", "user:[4026532300]");

        UeventSocket.Opening opening = UeventSocket.open(new FakeLibC(), proc);

        assertThat(opening).isEqualTo(new UeventSocket.Opening.Unavailable("this process runs in a user namespace"
                + " (uid_map '0 100000 65536') that owns its network namespace; the kernel sends uevents only to network"
                + " namespaces of the initial user namespace (run the pod with hostUsers: true)"));
    }

    @Test
    void aUserNamespaceInTheHostsNetworkNamespaceGetsUevents() throws Exception {
        userNamespace("0 100000 65536", "user:[4026532300]", "user:[4026531837]");

        assertThat(UeventSocket.open(new FakeLibC(), proc)).isInstanceOf(UeventSocket.Opening.Opened.class);
    }

    @Test
    void theInitialUserNamespaceGetsUevents() throws Exception {
        Files.writeString(proc.resolve("uid_map"), "         0          0 4294967295\n");

        assertThat(UeventSocket.open(new FakeLibC(), proc)).isInstanceOf(UeventSocket.Opening.Opened.class);
    }

    /** /proc/self as the kernel shows it in a user namespace: its uid_map, its own user namespace, and the owner of its netns. */
    private void userNamespace(String uidMap, String own, String netnsOwner) throws Exception {
        Files.writeString(proc.resolve("uid_map"), uidMap + "\n");
        Files.createDirectories(proc.resolve("ns"));
        Files.createDirectories(proc.resolve("fd"));
        Files.createSymbolicLink(proc.resolve("ns/user"), Path.of(own));
        Files.writeString(proc.resolve("ns/net"), "");
        Files.createSymbolicLink(proc.resolve("fd/" + FakeLibC.OWNER_FD), Path.of(netnsOwner));
    }

    private UeventSource opened(FakeLibC libc) {
        return ((UeventSocket.Opening.Opened) UeventSocket.open(libc, proc)).socket();
    }

    /** libc calls answering as the kernel would; only what the tests need. */
    static final class FakeLibC implements UeventSocket.LibC {
        static final int SOCKET_FD = 40;
        static final int WAKE_FD = 41;
        static final int NS_FD = 42;
        static final int OWNER_FD = 43;

        /** A message and its sender's port; a negative port is an errno for recvfrom instead. */
        record Message(int port, byte[] bytes) {}

        int socketErrno;
        int bindErrno;
        final Deque<Message> messages = new ArrayDeque<>();
        final Deque<Integer> closed = new ArrayDeque<>();
        long wakeCounter;

        @Override
        public int socket(int domain, int type, int protocol) {
            if (socketErrno != 0) throw new LastErrorException(socketErrno);
            return SOCKET_FD;
        }

        @Override
        public int setsockopt(int fd, int level, int name, int[] value, int length) {
            return 0;
        }

        @Override
        public int bind(int fd, Pointer address, int length) {
            if (bindErrno != 0) throw new LastErrorException(bindErrno);
            return 0;
        }

        @Override
        public int eventfd(int initial, int flags) {
            return WAKE_FD;
        }

        @Override
        public int poll(Pointer fds, NativeLong count, int timeoutMillis) {
            throw new AssertionError("poll would block: nothing left to receive");
        }

        @Override
        public NativeLong recvfrom(int fd, Pointer buffer, NativeLong length, int flags, Pointer from, int[] fromLength) {
            Message m = messages.poll();
            if (m == null) throw new LastErrorException(UeventSocket.EAGAIN);
            if (m.port() < 0) throw new LastErrorException(-m.port());
            buffer.write(0, m.bytes(), 0, m.bytes().length);
            from.setInt(4, m.port());
            return new NativeLong(m.bytes().length);
        }

        @Override
        public NativeLong write(int fd, long[] value, NativeLong count) {
            wakeCounter += value[0];
            return new NativeLong(8);
        }

        @Override
        public NativeLong read(int fd, long[] value, NativeLong count) {
            if (wakeCounter == 0) throw new LastErrorException(UeventSocket.EAGAIN);
            value[0] = wakeCounter;
            wakeCounter = 0;
            return new NativeLong(8);
        }

        @Override
        public int open(String path, int flags) {
            return NS_FD;
        }

        @Override
        public int ioctl(int fd, NativeLong request, NativeLong arg) {
            return OWNER_FD;
        }

        @Override
        public int close(int fd) {
            closed.add(fd);
            return 0;
        }

        @Override
        public String strerror(int errnum) {
            return Map.of(1, "Operation not permitted").getOrDefault(errnum, "errno " + errnum);
        }
    }
}
