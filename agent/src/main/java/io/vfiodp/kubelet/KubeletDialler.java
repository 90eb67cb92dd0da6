package io.vfiodp.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.vfiodp.host.FileKind;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Channels to the kubelet's own unix sockets: {@code kubelet.sock} in the device-plugin directory
 * (Register) and the PodResources socket. The path is resolved when the channel connects, so a
 * channel dialled before a kubelet restart reaches the old socket file or none: callers that care
 * compare {@link FileIdentity}s once connected.
 */
public final class KubeletDialler {

    private KubeletDialler() {}

    /** A plaintext channel to {@code socket} on {@code group}, its callbacks on the event loop; it connects when first used. */
    public static ManagedChannel dial(Path socket, EventLoopGroup group) {
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollDomainSocketChannel.class)
                // grpc asks for TCP keep-alive, which a unix socket does not have
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .withOption(ChannelOption.ALLOCATOR, UnpooledBuffers.ALLOCATOR)
                .eventLoopGroup(group)
                .directExecutor()
                .usePlaintext()
                // the authority a unix socket has no name for; the kubelet does not check it
                .overrideAuthority("localhost")
                .build();
    }

    /**
     * Why a call on a channel to {@code socket} could not connect, naming the socket file; empty
     * when the call failed otherwise (the kubelet answered with an error, a deadline passed). A
     * connect that fails reaches the caller as grpc's {@code UNAVAILABLE: io exception}, which names
     * neither the file nor what is wrong with it: this says what is at the path when it is not a
     * socket (a regular file, a directory, nothing at all), and otherwise why the connect failed.
     */
    public static Optional<String> connectFailure(Path socket, Throwable error) {
        Status status = Status.fromThrowable(error);
        // the server's own UNAVAILABLE (a kubelet shutting down) has no cause; the transport's has its I/O error
        if (status.getCode() != Status.Code.UNAVAILABLE || status.getCause() == null) return Optional.empty();
        String what;
        try {
            FileKind kind = FileKind.of(socket, true);
            what = kind == FileKind.SOCKET ? "connect failed: " + innermost(status.getCause()).getMessage()
                    : "it is " + kind.words() + ", not a socket: no kubelet listens there";
        } catch (NoSuchFileException e) {
            what = "it does not exist";
        } catch (IOException e) {
            what = "cannot tell what it is: " + e.getMessage();
        }
        return Optional.of("cannot connect to " + socket + ": " + what);
    }

    private static Throwable innermost(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return t;
    }
}
