package io.vfiodp.bench;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.dra.classes.ExtendedResourceClasses;
import io.vfiodp.host.fixtures.Trees;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.vfiodp.testkit.dra.ExtendedResourceClaim;
import io.vfiodp.testkit.dra.ExtendedResourcePod;
import io.vfiodp.testkit.dra.ExtendedResourceScheduler;
import java.io.IOException;
import java.net.InetAddress;
import java.util.HashMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code serve --dra-resources=all} as its own process, as in a cluster: against a mock API server
 * (named in KUBERNETES_MASTER or a kubeconfig, holding the Node and the DeviceClasses its resources need) and the DRA kubelet
 * simulator, every directory in a temporary one. Closing it stops the process (SIGTERM, then
 * SIGKILL after 10 s) and removes the directory.
 */
final class DraServeRun implements AutoCloseable {

    static final String DRIVER = "vfio-device-plugin.io";
    static final String NODE = "gpu-node-1";
    private static final Duration WAIT = Duration.ofSeconds(60);

    final KubernetesClient api;
    final DraKubeletSimulator kubelet;
    private final KubernetesMockServer server;
    private final Path dir;
    private final Process process;
    private int pods;

    private DraServeRun(KubernetesMockServer server, KubernetesClient api, DraKubeletSimulator kubelet, Path dir, Process process) {
        this.server = server;
        this.api = api;
        this.kubelet = kubelet;
        this.dir = dir;
        this.process = process;
    }

    /**
     * Starts serve on {@code fixture} and waits until the kubelet registered it and its slices are in the API. Serve finds the API
     * in {@code KUBERNETES_MASTER}, as the image's training run gives it and close to a pod's in-cluster configuration (no file to
     * parse); with {@code kubeconfig}, in a kubeconfig file named by {@code KUBECONFIG}, whose reading loads fabric8's kubeconfig
     * model, a YAML parser and its registry of every typed resource.
     */
    static DraServeRun start(List<String> command, Path fixture, List<String> resources, boolean kubeconfig) throws Exception {
        Path dir = Files.createTempDirectory("vfio-dp-dra-bench-");
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        KubernetesClient api = new KubernetesClientBuilder().withConfig(new ConfigBuilder(Config.empty())
                .withMasterUrl("http://127.0.0.1:" + server.getPort()).withNamespace("default").withHttp2Disable(true).build()).build();
        api.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        for (String r : resources) {
            var outcome = ExtendedResourceClasses.of(DRIVER, ResourceName.of(r));
            if (outcome instanceof ExtendedResourceClasses.Named n) {
                api.dynamicResourceAllocation().v1().deviceClasses().resource(n.deviceClass().toDeviceClass()).create();
            }
        }
        Path config = dir.resolve("kubeconfig.yaml");
        Files.writeString(config, """
                apiVersion: v1
                kind: Config
                clusters: [{name: mock, cluster: {server: "http://127.0.0.1:%d"}}]
                users: [{name: plugin, user: {token: bench}}]
                contexts: [{name: mock, context: {cluster: mock, user: plugin}}]
                current-context: mock
                """.formatted(server.getPort()));
        Path registry = Files.createDirectories(dir.resolve("plugins_registry"));
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of("serve", "--sysfs-root", fixture.resolve("sys").toString(), "--dev-root", fixture.resolve("dev").toString(),
                "--device-plugin-dir", Files.createDirectories(dir.resolve("device-plugins")).toString(), "--metrics-address", "127.0.0.1:0",
                "--kubevirt", "off", "--dra-resources", "all", "--dra-registry-dir", registry.toString(),
                "--dra-plugin-dir", dir.resolve("plugins").resolve(DRIVER).toString(), "--cdi-dir", dir.resolve("cdi").toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("serve.log").toFile());
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().keySet().removeIf(k -> k.startsWith("KUBE") || k.startsWith("VFIO_DP_") || k.equals("NODE_NAME"));
        pb.environment().putAll(kubeconfig ? Map.of("KUBECONFIG", config.toString(), "NODE_NAME", NODE)
                : Map.of("KUBERNETES_MASTER", "http://127.0.0.1:" + server.getPort(), "NODE_NAME", NODE));
        DraKubeletSimulator kubelet = new DraKubeletSimulator(registry, DraKubeletSimulator.KUBELET_136);
        DraServeRun run = new DraServeRun(server, api, kubelet, dir, pb.start());
        try {
            run.awaitRegisteredAndPublished();
        } catch (Exception e) {
            run.close();
            throw e;
        }
        return run;
    }

    private void awaitRegisteredAndPublished() throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (kubelet.registrationSockets().isEmpty()) {
            if (System.nanoTime() > deadline || !process.isAlive()) throw new IllegalStateException("serve did not serve its registration; " + log());
            Thread.sleep(20);
        }
        kubelet.register(kubelet.registrationSockets().getFirst());
        while (api.dynamicResourceAllocation().v1().resourcesSlices().list().getItems().isEmpty()) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("serve published no ResourceSlice; " + log());
            Thread.sleep(20);
        }
    }

    long pid() {
        return process.pid();
    }

    String status() throws IOException {
        return Files.readString(Path.of("/proc/" + process.pid() + "/status"));
    }

    private String log() throws IOException {
        return "its output:\n" + Files.readString(dir.resolve("serve.log"));
    }

    /** The scheduler's claim of a pod, as the API holds it: with its UID. */
    record Scheduled(ExtendedResourceClaim claim, String uid) {}

    /** A virt-launcher pod asking {@code devices} (pool device names) of {@code resource}: its special claim, written to the API. */
    Scheduled schedule(String resource, List<String> devices) {
        String name = "virt-launcher-vm-" + pods++;
        ExtendedResourcePod pod = new ExtendedResourcePod("vms", name, name + "-uid", List.of(ExtendedResourcePod.Container.virtLauncher(resource,
                devices.size())));
        ExtendedResourceClaim claim = ExtendedResourceScheduler.schedule(pod, Map.of(resource, ExtendedResourceClasses.className(DRIVER,
                ResourceName.of(resource))), Map.of(resource, devices.stream().map(d -> new ExtendedResourceScheduler.Candidate(DRIVER, NODE, d)).toList()));
        ResourceClaim stored = api.dynamicResourceAllocation().v1().resourceClaims().inNamespace("vms")
                .resource(Serialization.unmarshal(claim.claimJson(), ResourceClaim.class)).create();
        return new Scheduled(claim, stored.getMetadata().getUid());
    }

    @Override
    public void close() throws Exception {
        try {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
        } finally {
            kubelet.close();
            api.close();
            server.destroy();
            Trees.deleteRecursively(dir);
        }
    }
}
