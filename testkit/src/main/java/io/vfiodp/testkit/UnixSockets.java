package io.vfiodp.testkit;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.Executor;

/** The kubelet's unix sockets: which files are sockets, and its gRPC connections to a plugin's. */
public final class UnixSockets {

    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;

    private UnixSockets() {}

    /** Whether {@code p} itself (not what a link points to) is a unix socket, as the kubelet's socket checks ask. */
    public static boolean isSocket(Path p) {
        try {
            int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & S_IFMT) == S_IFSOCK;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * A plaintext gRPC channel to the unix socket {@code socket} on {@code group}, running its
     * callbacks on {@code callbacks} (grpc's shared pool would keep its threads a minute after the
     * caller is done).
     */
    public static ManagedChannel dial(Path socket, EventLoopGroup group, Executor callbacks) {
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollDomainSocketChannel.class)
                // grpc asks for TCP keep-alive, which a unix socket does not have (netty would warn per connection)
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .eventLoopGroup(group)
                .executor(callbacks)
                .usePlaintext()
                .overrideAuthority("localhost")
                .build();
    }
}
