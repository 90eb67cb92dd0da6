package io.vfiodp.plugin;

import static io.vfiodp.plugin.Devices.pci;
import static io.vfiodp.plugin.Devices.resource;
import static io.vfiodp.plugin.Devices.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One Register call, against the kubelet simulator, with a real resource server as its endpoint. */
class KubeletRegistrarTest {

    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";

    @TempDir Path dir;
    private EpollEventLoopGroup group;
    private ScheduledExecutorService reconcileThread;
    private ResourceServer server;
    private KubeletSimulator kubelet;
    private KubeletRegistrar registrar;
    private RegisterRequest request;

    @BeforeEach
    void start() throws Exception {
        group = new EpollEventLoopGroup(1);
        reconcileThread = Executors.newSingleThreadScheduledExecutor();
        Path socket = dir.resolve(SocketNames.forResource(dir, ResourceName.of(T4)));
        server = ResourceServer.start(ResourceView.allOf(state(resource(T4, pci("0000:3b:00.0", 12, 0)))).get(ResourceName.of(T4)),
                socket, group, reconcileThread, PluginListener.NONE);
        kubelet = KubeletSimulator.start(dir);
        registrar = new KubeletRegistrar(dir.resolve(KubeletSimulator.SOCKET), group, Duration.ofSeconds(5));
        request = RegisterRequest.newBuilder().setVersion(KubeletRegistrar.VERSION).setEndpoint(socket.getFileName().toString())
                .setResourceName(T4).setOptions(DevicePluginService.OPTIONS).build();
    }

    @AfterEach
    void stop() throws Exception {
        registrar.close();
        kubelet.close();
        reconcileThread.submit(() -> server.stop(false)).get(30, TimeUnit.SECONDS);
        reconcileThread.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void registersWithTheKubeletWhoseSocketTheCallerSaw() throws Exception {
        registrar.register(request, FileIdentity.of(dir.resolve(KubeletSimulator.SOCKET))).get(30, TimeUnit.SECONDS);

        assertThat(kubelet.registrationsSinceRestart()).extracting(KubeletSimulator.Registration::resourceName).containsExactly(T4);
    }

    @Test
    void theFirstRegisterGoesOverTheConnectionDialledAhead() throws Exception {
        Optional<FileIdentity> seen = FileIdentity.of(dir.resolve(KubeletSimulator.SOCKET));

        assertThat(registrar.dialAhead().get(30, TimeUnit.SECONDS)).isEqualTo(seen);
        registrar.register(request, seen).get(30, TimeUnit.SECONDS);

        assertThat(kubelet.registrationsSinceRestart()).extracting(KubeletSimulator.Registration::resourceName).containsExactly(T4);
        assertThat(registrar.dials()).isEqualTo(1);
        assertThat(registrar.openChannels()).isZero();
    }

    @Test
    void aConnectionDialledAheadToAKubeletThatRestartedSinceIsDroppedAndTheNewKubeletDialled() throws Exception {
        registrar.dialAhead().get(30, TimeUnit.SECONDS);
        kubelet.restart();
        reconcileThread.submit(() -> server.stop(false)).get(30, TimeUnit.SECONDS);
        server = ResourceServer.start(ResourceView.allOf(state(resource(T4, pci("0000:3b:00.0", 12, 0)))).get(ResourceName.of(T4)),
                dir.resolve(request.getEndpoint()), group, reconcileThread, PluginListener.NONE);

        registrar.register(request, FileIdentity.of(dir.resolve(KubeletSimulator.SOCKET))).get(30, TimeUnit.SECONDS);

        assertThat(kubelet.registrationsSinceRestart()).extracting(KubeletSimulator.Registration::resourceName).containsExactly(T4);
        assertThat(registrar.dials()).isEqualTo(2);
        assertThat(registrar.openChannels()).isZero();
    }

    @Test
    void aConnectionDialledAheadThatNoRegisterTakesIsClosedAfterTheRegistrationTimeout() throws Exception {
        KubeletRegistrar shortLived = new KubeletRegistrar(dir.resolve(KubeletSimulator.SOCKET), group, Duration.ofMillis(200));

        assertThat(shortLived.dialAhead().get(30, TimeUnit.SECONDS)).isPresent();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(shortLived.openChannels()).isZero());
        shortLived.close();
    }

    @Test
    void nothingIsDialledAheadWithoutAKubeletSocket() throws Exception {
        KubeletRegistrar noKubelet = new KubeletRegistrar(dir.resolve("absent/kubelet.sock"), group, Duration.ofSeconds(5));

        assertThat(noKubelet.dialAhead().get(30, TimeUnit.SECONDS)).isEmpty();
        assertThat(noKubelet.dials()).isZero();
        noKubelet.close();
    }

    @Test
    void registrationMeantForAKubeletThatRestartedSinceIsNotSentToTheNewOne() throws Exception {
        Optional<FileIdentity> seen = FileIdentity.of(dir.resolve(KubeletSimulator.SOCKET));
        kubelet.restart();
        // The restart deleted every socket; the resource server would be restarted by the reconcile loop.
        reconcileThread.submit(() -> server.stop(false)).get(30, TimeUnit.SECONDS);
        server = ResourceServer.start(ResourceView.allOf(state(resource(T4, pci("0000:3b:00.0", 12, 0)))).get(ResourceName.of(T4)),
                dir.resolve(request.getEndpoint()), group, reconcileThread, PluginListener.NONE);

        var call = registrar.register(request, seen);

        assertThat(call).failsWithin(Duration.ofSeconds(30)).withThrowableOfType(ExecutionException.class)
                .withMessageContaining(dir.resolve(KubeletSimulator.SOCKET) + " was replaced while connecting");
        assertThat(kubelet.registrationsSinceRestart()).isEmpty();
    }

    @Test
    void aKubeletSocketThatIsARegularFileFailsTheRegistrationNamingTheFileAndWhatItIs() throws Exception {
        Path plain = Files.writeString(Files.createDirectories(dir.resolve("plain")).resolve("kubelet.sock"), "");
        KubeletRegistrar toAFile = new KubeletRegistrar(plain, group, Duration.ofSeconds(30));
        try {
            var call = toAFile.register(request, FileIdentity.of(plain));

            assertThat(call).failsWithin(Duration.ofSeconds(60)).withThrowableOfType(ExecutionException.class)
                    .withMessageContaining("cannot connect to " + plain + ": it is a regular file, not a socket: no kubelet listens there");
        } finally {
            toAFile.close();
        }
    }

    @Test
    void aKubeletSocketNobodyListensOnFailsTheRegistrationNamingTheFileAndWhy() throws Exception {
        Path stale = Files.createDirectories(dir.resolve("stale")).resolve("kubelet.sock");
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(stale));
        }
        KubeletRegistrar toAStaleSocket = new KubeletRegistrar(stale, group, Duration.ofSeconds(30));
        try {
            var call = toAStaleSocket.register(request, FileIdentity.of(stale));

            assertThat(call).failsWithin(Duration.ofSeconds(60)).withThrowableOfType(ExecutionException.class)
                    .withMessageContaining("cannot connect to " + stale + ": connect failed: ")
                    .withMessageContaining("Connection refused");
        } finally {
            toAStaleSocket.close();
        }
    }
}
