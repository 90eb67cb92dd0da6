package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.vfiodp.proto.hooks.v1alpha3.CallbacksGrpc;
import io.vfiodp.proto.hooks.v1alpha3.ShutdownParams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HookSidecarCommandTest {

    @TempDir
    Path dir;

    static void awaitFile(Path file) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(file).exists());
    }

    static void awaitLine(Path log, String text) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(log).content(StandardCharsets.UTF_8).contains(text));
    }

    @Test
    void shutdownFromVirtLauncherEndsTheCommandWithStatusZeroAndRemovesTheSocket() throws Exception {
        Path socket = dir.resolve("vfio-device-plugin.sock");
        Path env = Files.writeString(dir.resolve("env"), "PCI_RESOURCE_NVIDIA_COM_X=0000:3b:00.0\n");
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() ->
                Main.commandLine().execute("hook-sidecar", "--socket-dir", dir.toString(), "--env-file", env.toString()));
        awaitFile(socket);
        EventLoopGroup loop = new EpollEventLoopGroup(1);
        ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollDomainSocketChannel.class)
                .withOption(ChannelOption.SO_KEEPALIVE, null).eventLoopGroup(loop).usePlaintext().build();
        try {
            // the socket file exists from bind(), a moment before the server listens
            CallbacksGrpc.newBlockingStub(channel).withWaitForReady().withDeadlineAfter(10, TimeUnit.SECONDS)
                    .shutdown(ShutdownParams.getDefaultInstance());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        assertThat(exit.get(10, TimeUnit.SECONDS)).isZero();
        assertThat(Files.exists(socket)).isFalse();
    }

    @Test
    void sigtermStopsTheSidecarProcessAndRemovesItsSocket() throws Exception {
        Path socket = dir.resolve("vfio-device-plugin.sock");
        Path log = dir.resolve("sidecar.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "hook-sidecar", "--socket-dir", dir.toString()))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            awaitLine(log, "hook sidecar ready");
            assertThat(Files.exists(socket)).isTrue();
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("sidecar exits after SIGTERM").isTrue();
            assertThat(p.exitValue()).isEqualTo(143);
            assertThat(Files.exists(socket)).isFalse();
            assertThat(Files.readString(log, StandardCharsets.UTF_8)).contains("hook sidecar serving Info and Callbacks v1alpha1..v1alpha3 on " + socket);
        } finally {
            p.destroyForcibly();
        }
    }
}
