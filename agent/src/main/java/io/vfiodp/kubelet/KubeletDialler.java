package io.vfiodp.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;

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
}
