package io.vfiodp.hooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.vfiodp.libvirt.HostdevXml;
import io.vfiodp.libvirt.LauncherEnv;
import io.vfiodp.libvirt.LibvirtTools;
import io.vfiodp.proto.hooks.info.HookPoint;
import io.vfiodp.proto.hooks.info.InfoGrpc;
import io.vfiodp.proto.hooks.info.InfoParams;
import io.vfiodp.proto.hooks.info.InfoResult;
import io.vfiodp.proto.hooks.v1alpha3.CallbacksGrpc;
import io.vfiodp.proto.hooks.v1alpha3.OnDefineDomainParams;
import io.vfiodp.proto.hooks.v1alpha3.PreCloudInitIsoParams;
import io.vfiodp.proto.hooks.v1alpha3.PreCloudInitIsoResult;
import io.vfiodp.proto.hooks.v1alpha3.ShutdownParams;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sidecar over a real unix socket, with a gRPC client playing virt-launcher. */
class HookSidecarServerTest {

    static final HostdevXml XML = new HostdevXml();
    static final String T4_VAR = "PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4";

    /** KubeVirt's own VMI for the domain in kubevirt-gpu-domain.xml, plus a second GPU. */
    static final String VMI = """
            {"apiVersion":"kubevirt.io/v1","kind":"VirtualMachineInstance",
             "metadata":{"name":"vmi-t4","namespace":"gpu-workloads","annotations":{"vfio-device-plugin.io/companions":"true"}},
             "spec":{"domain":{"devices":{"gpus":[{"name":"gpu0","deviceName":"nvidia.com/TU104GL_TESLA_T4"},
                                                   {"name":"gpu1","deviceName":"nvidia.com/TU104GL_TESLA_T4"}]}}}}
            """;

    @TempDir
    Path hooks;

    private HookSidecarServer server;
    private EventLoopGroup clientLoop;
    private ManagedChannel channel;

    @AfterEach
    void tearDown() throws InterruptedException {
        if (channel != null) channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        if (clientLoop != null) clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        if (server != null) server.close();
    }

    static String domain() throws IOException {
        try (InputStream in = HookSidecarServerTest.class.getResourceAsStream("/libvirt/kubevirt-gpu-domain.xml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    void startWith(Map<String, String> env) throws IOException {
        server = HookSidecarServer.start(hooks, new DomainDefinitionHook(LauncherEnv.of(env), false, Optional.empty(), XML));
        clientLoop = new EpollEventLoopGroup(1);
        channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(server.socket().toString()))
                .channelType(EpollDomainSocketChannel.class)
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .eventLoopGroup(clientLoop)
                .usePlaintext()
                .build();
    }

    void startWithGpus() throws IOException {
        startWith(Map.of(T4_VAR, "0000:3b:00.0,0000:86:00.0",
                "VFIO_DP_COMPANIONS_NVIDIA_COM_TU104GL_TESLA_T4", "0000:3b:00.0=0000:3b:00.1,0000:86:00.0=0000:86:00.1"));
    }

    CallbacksGrpc.CallbacksBlockingStub v1alpha3() {
        return CallbacksGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    String define(String domainXml) {
        return v1alpha3().onDefineDomain(OnDefineDomainParams.newBuilder()
                .setDomainXML(ByteString.copyFromUtf8(domainXml))
                .setVmi(ByteString.copyFromUtf8(VMI))
                .build()).getDomainXML().toStringUtf8();
    }

    @Test
    void theSocketSitsDirectlyInTheHooksDirectoryUnderOurName() throws IOException {
        startWithGpus();
        assertThat(server.socket()).isEqualTo(hooks.resolve("vfio-device-plugin.sock").toAbsolutePath());
        assertThat(Files.exists(server.socket())).isTrue();
    }

    @Test
    void infoAnnouncesOnDefineDomainAndShutdownForEveryCallbacksVersion() throws IOException {
        startWithGpus();
        InfoResult info = InfoGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).info(InfoParams.getDefaultInstance());
        assertThat(info).isEqualTo(InfoResult.newBuilder()
                .setName("vfio-device-plugin")
                .addHookPoints(HookPoint.newBuilder().setName("OnDefineDomain").setPriority(0))
                .addHookPoints(HookPoint.newBuilder().setName("Shutdown").setPriority(0))
                .addVersions("v1alpha1").addVersions("v1alpha2").addVersions("v1alpha3")
                .build());
    }

    @Test
    void onDefineDomainTwiceOnItsOwnOutputChangesTheDomainOnlyTheFirstTime() throws IOException {
        startWithGpus();
        String original = domain();
        String first = define(original);
        String second = define(first);

        assertThat(first).isNotEqualTo(original);
        assertThat(second).isEqualTo(first);
        // KubeVirt's hostdev for gpu0 stays one hostdev; gpu1 and both companions join it
        assertThat(first.split("<hostdev ", -1)).hasSize(1 + 4);
        assertThat(first).contains("<alias name=\"ua-gpu-gpu0-fn1\"/>", "<alias name=\"ua-gpu-gpu1\"/>", "<alias name=\"ua-gpu-gpu1-fn1\"/>")
                .contains("<qemu:arg value=\"name=opt/ovmf/X-PciMmio64Mb,string=65536\"></qemu:arg>")
                .contains("<kubevirt xmlns=\"http://kubevirt.io\">\n\t\t\t<uid>9f3a1c2e-4b5d-4e6f-8a7b-0c1d2e3f4a5b</uid>")
                .contains("<boot order=\"3\"/>", "<acpi index=\"7\"/>", "<source writeFiltering=\"no\">");
        LibvirtTools.assertDomainAccepted(first);
    }

    @Test
    void olderCallbacksVersionsDefineTheSameDomain() throws IOException {
        startWithGpus();
        String original = domain();
        String v3 = define(original);
        String v2 = io.vfiodp.proto.hooks.v1alpha2.CallbacksGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                .onDefineDomain(io.vfiodp.proto.hooks.v1alpha2.OnDefineDomainParams.newBuilder()
                        .setDomainXML(ByteString.copyFromUtf8(original)).setVmi(ByteString.copyFromUtf8(VMI)).build())
                .getDomainXML().toStringUtf8();
        String v1 = io.vfiodp.proto.hooks.v1alpha1.CallbacksGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                .onDefineDomain(io.vfiodp.proto.hooks.v1alpha1.OnDefineDomainParams.newBuilder()
                        .setDomainXML(ByteString.copyFromUtf8(original)).setVmi(ByteString.copyFromUtf8(VMI)).build())
                .getDomainXML().toStringUtf8();
        assertThat(v2).isEqualTo(v3);
        assertThat(v1).isEqualTo(v3);
    }

    @Test
    void withoutDeviceVariablesTheDomainComesBackUnchanged() throws IOException {
        startWith(Map.of("HOME", "/root"));
        String original = domain();
        assertThat(define(original)).isEqualTo(original);
    }

    @Test
    void aVmiTheEnvironmentCannotServeFailsTheCallWithTheReason() throws IOException {
        startWith(Map.of(T4_VAR, "0000:3b:00.0"));
        assertThatThrownBy(() -> define(domain()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getStatus().getDescription()).isEqualTo("vfio-device-plugin hook: gpus[1] 'gpu1' (nvidia.com/TU104GL_TESLA_T4): "
                            + T4_VAR + " lists 1 device(s) ('0000:3b:00.0'), fewer than the VMI entries naming nvidia.com/TU104GL_TESLA_T4");
                });
    }

    @Test
    void preCloudInitIsoReturnsItsInputUnchanged() throws IOException {
        startWithGpus();
        PreCloudInitIsoResult result = v1alpha3().preCloudInitIso(PreCloudInitIsoParams.newBuilder()
                .setCloudInitData(ByteString.copyFromUtf8("{\"DataSource\":\"noCloud\",\"UserData\":\"#cloud-config\\n\"}"))
                .setCloudInitNoCloudSource(ByteString.copyFromUtf8("{\"userData\":\"#cloud-config\\n\"}"))
                .setVmi(ByteString.copyFromUtf8(VMI))
                .build());
        assertThat(result.getCloudInitData().toStringUtf8()).isEqualTo("{\"DataSource\":\"noCloud\",\"UserData\":\"#cloud-config\\n\"}");
        assertThat(result.getCloudInitNoCloudSource().toStringUtf8()).isEqualTo("{\"userData\":\"#cloud-config\\n\"}");
    }

    @Test
    void shutdownReleasesTheOwnerWhichThenRemovesTheSocket() throws IOException {
        startWithGpus();
        v1alpha3().shutdown(ShutdownParams.getDefaultInstance());
        assertTimeoutPreemptively(Duration.ofSeconds(30), server::awaitStopRequest);
        server.close();
        assertThat(Files.exists(server.socket())).isFalse();
    }

    @Test
    void aSocketLeftBehindByACrashedSidecarIsReplaced() throws IOException {
        Path stale = hooks.resolve(HookSidecarServer.SOCKET_NAME);
        try (ServerSocketChannel previous = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            previous.bind(UnixDomainSocketAddress.of(stale));
        }
        assertThat(Files.exists(stale)).isTrue();
        startWithGpus();
        assertThat(InfoGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).info(InfoParams.getDefaultInstance()).getName())
                .isEqualTo("vfio-device-plugin");
    }

    @Test
    void aRegularFileWhereTheSocketGoesIsNotTouched() throws IOException {
        Path file = Files.writeString(hooks.resolve(HookSidecarServer.SOCKET_NAME), "keep me");
        DomainDefinitionHook hook = new DomainDefinitionHook(LauncherEnv.of(Map.of()), false, Optional.empty(), XML);
        assertThatThrownBy(() -> HookSidecarServer.start(hooks, hook))
                .isInstanceOf(IOException.class)
                .hasMessage(file.toAbsolutePath() + " exists and is not a socket; refusing to replace it");
        assertThat(Files.readString(file)).isEqualTo("keep me");
    }
}
