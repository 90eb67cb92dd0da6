package io.vfiodp.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.vfiodp.proto.pluginregistration.v1.InfoRequest;
import io.vfiodp.proto.pluginregistration.v1.RegistrationGrpc;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Serving on a unix socket as both kubelet sides do, dialled as the kubelet's sockets are. */
class SocketServerTest {

    @TempDir Path dir;
    private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
    private final ExecutorService handlers = Executors.newSingleThreadExecutor();

    @AfterEach
    void close() throws InterruptedException {
        handlers.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private static PluginWatcherRegistration registration(List<RegistrationStatus> heard) {
        return new PluginWatcherRegistration("DRAPlugin", "d.io", Path.of("/p/dra.sock"), List.of("v1.DRAPlugin"), heard::add);
    }

    @Test
    void aBoundServerAnswersOnItsSocket() throws IOException {
        Path socket = dir.resolve("a.sock");
        SocketServer server = SocketServer.bind(socket, List.of(registration(List.of())), group, handlers);
        ManagedChannel channel = KubeletDialler.dial(socket, group);
        try {
            assertThat(RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS).getInfo(InfoRequest.getDefaultInstance())
                    .getName()).isEqualTo("d.io");
        } finally {
            channel.shutdownNow();
            server.stop();
        }
    }

    @Test
    void aLeftoverFileAtTheSocketPathIsReplaced() throws IOException {
        Path socket = Files.writeString(dir.resolve("a.sock"), "left by a crashed run");
        SocketServer server = SocketServer.bindDirect(socket, List.of(registration(List.of())), group);
        try {
            assertThat(server.intact()).isTrue();
            assertThat(Files.isRegularFile(socket)).isFalse();
        } finally {
            server.stop();
        }
    }

    @Test
    void aDirectoryInTheSocketsPlaceIsNamedAsTheProblem() throws IOException {
        Path socket = dir.resolve("a.sock");
        Files.createDirectories(socket.resolve("inside"));
        assertThatThrownBy(() -> SocketServer.bindDirect(socket, List.of(registration(List.of())), group))
                .isInstanceOf(IOException.class).hasMessage("a directory that is not empty is in its place");
    }

    @Test
    void aDeletedSocketIsNoLongerIntact() throws IOException {
        Path socket = dir.resolve("a.sock");
        SocketServer server = SocketServer.bindDirect(socket, List.of(registration(List.of())), group);
        try {
            Files.delete(socket);
            assertThat(server.intact()).isFalse();
        } finally {
            server.stop();
        }
    }

    @Test
    void stoppingRemovesTheSocketItCreated() throws IOException {
        Path socket = dir.resolve("a.sock");
        SocketServer.bindDirect(socket, List.of(registration(List.of())), group).stop();
        assertThat(socket).doesNotExist();
    }

    @Test
    void stoppingNeverRemovesTheSocketOfASuccessorOnTheSamePath() throws IOException {
        Path socket = dir.resolve("a.sock");
        SocketServer first = SocketServer.bindDirect(socket, List.of(registration(List.of())), group);
        SocketServer successor = SocketServer.bindDirect(socket, List.of(registration(List.of())), group);
        try {
            assertThat(first.intact()).isFalse();
            first.stop();
            assertThat(successor.intact()).isTrue();
        } finally {
            successor.stop();
        }
    }

    @Test
    void theKubeletsVerdictReachesThePluginAndARefusalIsAnsweredWithAnError() throws IOException {
        Path socket = dir.resolve("reg.sock");
        List<RegistrationStatus> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        SocketServer server = SocketServer.bind(socket, List.of(registration(heard)), group, handlers);
        ManagedChannel channel = KubeletDialler.dial(socket, group);
        try {
            var stub = RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS);
            var info = stub.getInfo(InfoRequest.getDefaultInstance());
            assertThat(List.of(info.getType(), info.getName(), info.getEndpoint())).containsExactly("DRAPlugin", "d.io", "/p/dra.sock");
            assertThat(info.getSupportedVersionsList()).containsExactly("v1.DRAPlugin");
            stub.notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build());
            assertThatThrownBy(() -> stub.notifyRegistrationStatus(RegistrationStatus.newBuilder().setError("no such service").build()))
                    .hasMessage("UNKNOWN: failed registration process: no such service");
            assertThat(heard).extracting(RegistrationStatus::getPluginRegistered).containsExactly(true, false);
        } finally {
            channel.shutdownNow();
            server.stop();
        }
    }
}
