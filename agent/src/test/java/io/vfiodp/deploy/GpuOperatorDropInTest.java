package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.checkout.Checkout;
import io.vfiodp.cli.Main;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.kube.kubevirt.KubeVirtCrs;
import io.vfiodp.serve.HostTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * Our image as the GPU Operator's {@code sandboxDevicePlugin}: the ClusterPolicy changes repository,
 * image and version and nothing else, and the pod the Operator renders (see {@link GpuOperatorSandbox})
 * must run {@code serve} with its defaults, on its mounts, with its service account's rights.
 */
class GpuOperatorDropInTest {

    private static final String NODE = "gpu-node-1";
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final Path T4_NUMA = Path.of("src/test/resources/sysfs-fixtures/t4-numa");
    /**
     * Generous: a serve JVM of its own starts and scans first, which takes many times its quiet time on a 2-core
     * machine that other builds and the other test fork share.
     */
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final Subject SERVICE_ACCOUNT = new SubjectBuilder().withKind("ServiceAccount").withName(GpuOperatorSandbox.NAME)
            .withNamespace(GpuOperatorSandbox.NAMESPACE).build();
    private static final Pattern DOCKER_INSTRUCTION = Pattern.compile("(?m)^(ENTRYPOINT|CMD) (\\[.*])$");

    @TempDir Path temp;

    private static DaemonSet rendered() {
        return GpuOperatorSandbox.daemonSet(GpuOperatorSandbox.Spec.vfioDevicePlugin("0.1.0"));
    }

    /** The container's env as the kubelet fills it on {@link #NODE}: downward-API fields resolved. */
    private static Map<String, String> podEnv(Container c) {
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvVar v : c.getEnv()) {
            String value = v.getValue();
            if (value == null) {
                value = switch (v.getValueFrom().getFieldRef().getFieldPath()) {
                    case "spec.nodeName" -> NODE;
                    case "metadata.namespace" -> GpuOperatorSandbox.NAMESPACE;
                    default -> throw new AssertionError("unexpected downward API field " + v.getValueFrom().getFieldRef().getFieldPath());
                };
            }
            env.put(v.getName(), value);
        }
        return env;
    }

    /** The image's ENTRYPOINT or CMD, as the exec form the Dockerfile writes. */
    private static List<String> dockerfile(String instruction) throws IOException {
        Matcher m = DOCKER_INSTRUCTION.matcher(Files.readString(Checkout.path("Dockerfile")));
        while (m.find()) {
            if (m.group(1).equals(instruction)) return List.of(Serialization.unmarshal(m.group(2), String[].class));
        }
        throw new AssertionError("Dockerfile has no exec-form " + instruction);
    }

    /** What the container runs: no command, so the image's ENTRYPOINT; its args, else the image's CMD. */
    private static List<String> serveArgs(Container c) throws IOException {
        assertThat(c.getCommand()).as("the Operator sets no command").isNullOrEmpty();
        return c.getArgs() == null || c.getArgs().isEmpty() ? dockerfile("CMD") : c.getArgs();
    }

    private static CommandSpec parse(Container c) throws IOException {
        List<String> args = serveArgs(c);
        // options alone run the default command, serve (Main.withDefaultCommand; DefaultCommandTest)
        if (args.getFirst().startsWith("-")) args = java.util.stream.Stream.concat(java.util.stream.Stream.of("serve"), args.stream()).toList();
        ParseResult parsed = Main.commandLine(podEnv(c)).parseArgs(args.toArray(String[]::new));
        assertThat(parsed.subcommand().commandSpec().name()).isEqualTo("serve");
        return parsed.subcommand().commandSpec();
    }

    private static <T> T option(CommandSpec spec, String name) {
        return spec.findOption(name).getValue();
    }

    private static Optional<Volume> hostVolumeAt(DaemonSet ds, String containerPath) {
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        return GpuOperatorSandbox.container(ds).getVolumeMounts().stream().filter(m -> m.getMountPath().equals(containerPath))
                .map(VolumeMount::getName).findFirst()
                .flatMap(name -> pod.getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst());
    }

    @Test
    void theOperatorComposesTheImageOfOurManifestsFromRepositoryImageAndVersion() {
        // deploy/base as kubectl renders it: its kustomization's images: entry names the registry and tag
        String ours = Manifests.of("base").getFirst().container().getImage();

        assertThat(GpuOperatorSandbox.container(rendered()).getImage()).isEqualTo(ours).isEqualTo("ghcr.io/vfio-device-plugin/vfio-device-plugin:0.1.0");
        assertThat(GpuOperatorSandbox.Spec.nvidiaDefault().imagePath()).isEqualTo("nvcr.io/nvidia/kubevirt-gpu-device-plugin:v1.6.0");
    }

    @Test
    void theContainerRunsTheImagesLauncherWithServeAsItsDefaultCommand() throws IOException {
        Container c = GpuOperatorSandbox.container(rendered());

        assertThat(c.getCommand()).isNullOrEmpty();
        assertThat(c.getArgs()).isNullOrEmpty();
        assertThat(dockerfile("ENTRYPOINT")).containsExactly("/opt/vfio-device-plugin/bin/vfio-device-plugin");
        assertThat(dockerfile("CMD")).containsExactly("serve");
        // build.sh installs the launcher there; it passes its arguments on to the jar unchanged
        assertThat(Files.readString(Checkout.path("image/src/main/image/build.sh"))).contains("OUT/bin/vfio-device-plugin");
        assertThat(Files.readString(Checkout.path("image/src/main/image/vfio-device-plugin"))).contains("-cp \"$home/lib/vfio-device-plugin.jar\" io.vfiodp.cli.Main \"$@\"");
    }

    @Test
    void serveDefaultsAreThePodsMountsAndEnvironment() throws IOException {
        DaemonSet ds = rendered();
        CommandSpec serve = parse(GpuOperatorSandbox.container(ds));
        Path pluginDir = option(serve, "--device-plugin-dir");
        Path devRoot = option(serve, "--dev-root");

        assertThat(hostVolumeAt(ds, pluginDir.toString())).map(v -> v.getHostPath().getPath()).contains("/var/lib/kubelet/device-plugins");
        assertThat(hostVolumeAt(ds, devRoot.resolve("vfio").toString())).map(v -> v.getHostPath().getPath()).contains("/dev/vfio");
        // no /sys volume: a privileged container gets the host's sysfs from the runtime
        assertThat(GpuOperatorSandbox.container(ds).getSecurityContext().getPrivileged()).isTrue();
        assertThat(option(serve, "--sysfs-root").toString()).isEqualTo("/sys");
        assertThat((String) option(serve, "--node-name")).isEqualTo(NODE);
        assertThat(option(serve, "--kubevirt").toString()).isEqualTo("auto");
        assertThat((Object) option(serve, "--config")).isNull();
        assertThat((Boolean) option(serve, "--manage-vgpus")).as("vm-vgpu layouts are the Operator's vgpu-device-manager's").isFalse();
        assertThat((String) option(serve, "--metrics-address")).isEqualTo(":9402");
        assertThat(ds.getSpec().getTemplate().getSpec().getNodeSelector()).containsExactly(Map.entry(GpuOperatorSandbox.DEPLOY_LABEL, "true"));
    }

    @Test
    void argsAndEnvFromTheClusterPolicyReachServe() throws IOException {
        DaemonSet ds = GpuOperatorSandbox.daemonSet(new GpuOperatorSandbox.Spec("ghcr.io/vfio-device-plugin", "vfio-device-plugin", "0.1.0",
                List.of("--rescan-interval=10s"), Map.of("VFIO_DP_METRICS_ADDRESS", ":9500")));
        CommandSpec serve = parse(GpuOperatorSandbox.container(ds));

        assertThat(option(serve, "--rescan-interval").toString()).isEqualTo("PT10S");
        assertThat((String) option(serve, "--metrics-address")).isEqualTo(":9500");
        assertThat((String) option(serve, "--node-name")).isEqualTo(NODE);
    }

    /** What a test runs {@code serve} in: the Operator's RBAC on a TLS API server, the kubelet, a node of the workload config. */
    private record OperatorNode(RbacMockApi api, KubeletSimulator kubelet, HostTree host, ServeChild serve) implements AutoCloseable {
        @Override
        public void close() {
            try (api; kubelet) {
                serve.close();
            }
        }
    }

    /**
     * {@code serve} with the pod's command line and environment and the in-cluster API settings the
     * kubelet adds, against an API server that enforces the Operator's RBAC, on a copy of
     * {@code fixture} labelled {@code workloadConfig}. KubeVirt is installed and its CR permits the
     * T4 under a name of its own, which the plugin cannot read. Only the host's roots are the
     * fixture's: the test cannot give the child the host's {@code /sys}.
     */
    private OperatorNode startOn(Path fixture, String workloadConfig) throws Exception {
        return startOn(fixture, workloadConfig, List.of());
    }

    /** As {@link #startOn(Path, String)}, with {@code extraRbac} applied besides the Operator's. */
    private OperatorNode startOn(Path fixture, String workloadConfig, List<HasMetadata> extraRbac) throws Exception {
        Container c = GpuOperatorSandbox.container(rendered());
        String token = "sandbox-device-plugin-token";
        Path tokenFile = Files.writeString(temp.resolve("token"), token);
        HostTree host = HostTree.copy(fixture, temp.resolve("node"));
        Path plugins = Files.createDirectories(temp.resolve("device-plugins"));
        List<HasMetadata> rbac = new ArrayList<>(GpuOperatorSandbox.rbac());
        rbac.addAll(extraRbac);
        RbacMockApi api = new RbacMockApi(rbac, SERVICE_ACCOUNT, token);
        KubeletSimulator kubelet = null;
        try {
            kubelet = KubeletSimulator.start(plugins);
            MockKubeApi.createKubeVirtCrd(api.admin());
            KubeVirtCrs.create(api.admin(), """
                    pciHostDevices:
                    - pciVendorSelector: "10DE:1EB8"
                      resourceName: nvidia.com/T4
                      externalResourceProvider: true
                    """);
            api.admin().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
                    .addToLabels("nvidia.com/gpu.workload.config", workloadConfig)
                    .addToLabels(GpuOperatorSandbox.DEPLOY_LABEL, "true").endMetadata().build()).create();

            Map<String, String> env = new LinkedHashMap<>(podEnv(c));
            env.put("KUBERNETES_SERVICE_HOST", "127.0.0.1");
            env.put("KUBERNETES_SERVICE_PORT", Integer.toString(api.port()));
            // the service account's token and CA are not at /var/run/secrets/kubernetes.io/serviceaccount here
            env.put("KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", tokenFile.toString());
            env.put("KUBERNETES_TRUST_CERTIFICATES", "true");
            env.put("KUBERNETES_DISABLE_HOSTNAME_VERIFICATION", "true");
            List<String> args = new ArrayList<>(serveArgs(c));
            args.addAll(List.of("--sysfs-root", host.sys().toString(), "--dev-root", host.dev().toString(),
                    "--device-plugin-dir", plugins.toString(), "--metrics-address", "127.0.0.1:0"));
            return new OperatorNode(api, kubelet, host, ServeChild.start(args, env, temp));
        } catch (Exception | Error e) {
            if (kubelet != null) kubelet.close();
            api.close();
            throw e;
        }
    }

    private static final String CR_LINE = "WARN cannot watch KubeVirt CRs (kubevirts.kubevirt.io, all namespaces): forbidden (HTTP 403): "
            + "grant list and watch on kubevirts.kubevirt.io; serving the local policy (--config file or defaults) meanwhile; "
            + "retrying (backoff 1 s to 30 s)";
    private static final String NODE_LINE = "WARN cannot watch node gpu-node-1: forbidden (HTTP 403): grant list and watch on nodes; "
            + "nodeMediatedDeviceTypes entries are matched against no labels meanwhile; retrying (backoff 1 s to 30 s)";
    private static final String PODS_LINE = "WARN cannot watch the pods of node gpu-node-1: forbidden (HTTP 403): grant list and watch on pods; "
            + "device holders are shown without their VMIs meanwhile; retrying (backoff 1 s to 30 s)";

    /** The lines that name a refused right, without their time stamps. */
    private static List<String> forbiddenLines(ServeChild serve) {
        return serve.linesWith("forbidden").stream().map(l -> l.substring(l.indexOf(' ') + 1)).toList();
    }

    private static void assertCleanRun(OperatorNode n) {
        assertThat(n.serve().lines()).as(n.serve().describe()).noneMatch(l -> l.contains(" ERROR ") || l.startsWith("\tat ")
                || l.contains("Exception"));
        assertThat(n.api().unauthenticated()).as("every request carries the service account's token").isEmpty();
    }

    @Test
    void vmPassthroughNodeIsServedUnderTheOperatorsRbacWithOneLinePerMissingRight() throws Exception {
        try (OperatorNode n = startOn(T4_NUMA, "vm-passthrough")) {
            n.kubelet().awaitRegistrations(List.of(T4), 1, WAIT);
            Watch w = n.kubelet().watch(T4);
            assertThat(w.awaitUpdate(u -> u.getDevicesCount() == 4, WAIT).getDevicesList())
                    .as("the local policy (default naming) serves the node while the CR cannot be read").hasSize(4);
            assertThat(n.kubelet().allocate(T4, List.of(List.of("0000:1a:00.0"))).getContainerResponses(0).getEnvsMap())
                    .containsEntry("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:1a:00.0");

            // two health changes: two Events the service account may not create
            n.host().removeGroupNode(25);
            w.awaitUpdate(u -> u.getDevicesList().stream().filter(d -> d.getHealth().equals("Unhealthy")).count() == 2, WAIT);
            n.host().createGroupNode(25);
            w.awaitUpdate(u -> u.getDevicesList().stream().filter(d -> d.getHealth().equals("Unhealthy")).count() == 1, WAIT);
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(n.api().forbidden()).as("both events posted, and the CR list retried after its backoff")
                        .filteredOn("create /events in default"::equals).hasSizeGreaterThanOrEqualTo(2);
                assertThat(n.api().forbidden()).filteredOn("list kubevirt.io/kubevirts in all namespaces"::equals).hasSizeGreaterThanOrEqualTo(2);
            });

            assertThat(n.serve().get("/readyz")).startsWith("ready: 1 resource(s)");
            assertThat(forbiddenLines(n.serve())).as(n.serve().describe()).containsExactlyInAnyOrder(CR_LINE, NODE_LINE, PODS_LINE,
                    "WARN cannot post Events on node gpu-node-1: forbidden (HTTP 403): grant create on events in the namespace default; events "
                            + "are only logged meanwhile (first not posted: VfioDeviceUnhealthy: nvidia.com/TU104GL_TESLA_T4 device 0000:1b:00.0 "
                            + "is Unhealthy: IOMMU group 25: /dev/vfio/25 missing)");
            assertThat(Set.copyOf(n.api().forbidden())).containsExactlyInAnyOrder("list kubevirt.io/kubevirts in all namespaces",
                    "list /nodes in all namespaces", "list /pods in all namespaces", "create /events in default");
            assertCleanRun(n);
        }
    }

    /**
     * On a {@code vm-vgpu} node the Operator's vgpu-device-manager has carved the vGPUs (here the
     * fixture's mdevs); the plugin serves each type under its default name and creates none.
     */
    @Test
    void vmVgpuNodeServesTheVgpusTheOperatorCreated() throws Exception {
        String q1 = "nvidia.com/GRID_T4-1Q";
        String q2 = "nvidia.com/GRID_T4-2Q";
        try (OperatorNode n = startOn(Path.of("src/test/resources/sysfs-fixtures/t4-vgpu"), "vm-vgpu")) {
            n.kubelet().awaitRegistrations(List.of(q1, q2), 1, WAIT);

            assertThat(n.kubelet().allocate(q2, List.of(List.of("e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64"))).getContainerResponses(0).getEnvsMap())
                    .containsExactly(Map.entry("MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-2Q", "e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64"));
            assertThat(n.serve().get("/readyz")).startsWith("ready: 2 resource(s)");
            await().atMost(WAIT).untilAsserted(() -> assertThat(forbiddenLines(n.serve())).containsExactlyInAnyOrder(CR_LINE, NODE_LINE,
                    PODS_LINE));
            assertThat(n.api().allowed()).as("no vGPU layout management: no Node read or patch").isEmpty();
            assertCleanRun(n);
        }
    }

    @Test
    void deployGpuOperatorGrantsExactlyWhatTheOperatorsAccountWasRefused() {
        for (Manifests m : Manifests.of("gpu-operator")) {
            Set<String> granted = RbacMockApi.grants(m.objects(), SERVICE_ACCOUNT);

            assertThat(granted).as(m.toString()).containsExactlyInAnyOrder("list kubevirt.io/kubevirts in all namespaces",
                    "watch kubevirt.io/kubevirts in all namespaces", "list /nodes in all namespaces", "watch /nodes in all namespaces",
                    "list /pods in all namespaces", "watch /pods in all namespaces", "get kubevirt.io/virtualmachineinstances in all namespaces",
                    "create /events in all namespaces");
            assertThat(RbacMockApi.grants(GpuOperatorSandbox.rbac(), SERVICE_ACCOUNT)).doesNotContainAnyElementsOf(granted);
        }
    }

    /** With deploy/gpu-operator applied the plugin follows the KubeVirt CR and posts Events, and says nothing is forbidden. */
    @Test
    void withDeployGpuOperatorItFollowsTheCrAndPostsNodeEvents() throws Exception {
        try (OperatorNode n = startOn(T4_NUMA, "vm-passthrough", Manifests.of("gpu-operator").getFirst().objects())) {
            n.kubelet().awaitRegistrations(List.of("nvidia.com/T4"), 1, WAIT);
            Watch w = n.kubelet().watch("nvidia.com/T4");
            w.awaitUpdate(u -> u.getDevicesCount() == 4, WAIT);

            n.host().removeGroupNode(25);
            w.awaitUpdate(u -> u.getDevicesList().stream().filter(d -> d.getHealth().equals("Unhealthy")).count() == 2, WAIT);
            await().atMost(WAIT).until(() -> n.api().allowed().contains("create /events in default"));

            assertThat(n.api().forbidden()).isEmpty();
            assertThat(n.kubelet().registrations()).extracting(KubeletSimulator.Registration::resourceName).doesNotContain(T4);
            assertThat(forbiddenLines(n.serve())).isEmpty();
            assertCleanRun(n);
        }
    }
}
