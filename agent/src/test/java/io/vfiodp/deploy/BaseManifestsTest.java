package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeAffinityBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.vfiodp.cli.Main;
import io.vfiodp.metrics.MetricsAddress;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/** deploy/base, rendered by every kubectl at hand (see {@link Kubectl}). */
class BaseManifestsTest {

    static Stream<Manifests> base() {
        return Manifests.of("base").stream();
    }

    /** The container's env with downward-API values replaced by a stand-in, as the kubelet would fill them. */
    static Map<String, String> env(Container c) {
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvVar v : c.getEnv()) {
            env.put(v.getName(), v.getValue() != null ? v.getValue() : "downward-api:" + v.getValueFrom().getFieldRef().getFieldPath());
        }
        return env;
    }

    /** Parses the container's args (with its env) with the real command line; parse only, nothing runs. */
    static CommandSpec serveOptions(Container c) {
        ParseResult parsed = Main.commandLine(env(c)).parseArgs(c.getArgs().toArray(String[]::new));
        assertThat(parsed.subcommand()).as("a sub-command is named").isNotNull();
        assertThat(parsed.subcommand().commandSpec().name()).isEqualTo("serve");
        return parsed.subcommand().commandSpec();
    }

    static <T> T option(CommandSpec spec, String name) {
        return spec.findOption(name).getValue();
    }

    /** {@code mountPath <- source (read-only|read-write)} per volume mount. */
    static List<String> mounts(Manifests m) {
        return m.container().getVolumeMounts().stream().map(vm -> vm.getMountPath() + " <- " + source(m.volume(vm.getName()))
                + (Boolean.TRUE.equals(vm.getReadOnly()) ? " (read-only)" : " (read-write)")).toList();
    }

    private static String source(Volume v) {
        if (v.getHostPath() != null) return "hostPath " + v.getHostPath().getPath() + " " + v.getHostPath().getType();
        if (v.getEmptyDir() != null) return "emptyDir " + v.getEmptyDir().getSizeLimit();
        return "other volume " + v.getName();
    }

    static String mountPathOf(Manifests m, String volume) {
        return m.container().getVolumeMounts().stream().filter(vm -> vm.getName().equals(volume)).map(VolumeMount::getMountPath)
                .findFirst().orElseThrow(() -> new AssertionError("no mount of " + volume));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void rendersTheNamespaceServiceAccountRbacAndDaemonSet(Manifests m) {
        assertThat(m.kindsAndNames()).containsExactlyInAnyOrder(
                "Namespace -/vfio-device-plugin",
                "ServiceAccount vfio-device-plugin/vfio-device-plugin",
                "ClusterRole -/vfio-device-plugin",
                "ClusterRoleBinding -/vfio-device-plugin",
                "DaemonSet vfio-device-plugin/vfio-device-plugin");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void namespaceAdmitsHostPathVolumesUnderPodSecurityAdmission(Manifests m) {
        assertThat(m.one(Namespace.class, "vfio-device-plugin").getMetadata().getLabels())
                .containsEntry("pod-security.kubernetes.io/enforce", "privileged");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void runsOnNodesTheAdminLabelsOrTheGpuOperatorLabelsForVms(Manifests m) {
        PodSpec pod = m.daemonSet().getSpec().getTemplate().getSpec();
        // node selector terms are ORed: the project's own label works without the GPU Operator
        NodeAffinity expected = new NodeAffinityBuilder().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm().addNewMatchExpression().withKey("vfio-device-plugin.io/enabled").withOperator("In")
                .withValues("true").endMatchExpression().endNodeSelectorTerm()
                .addNewNodeSelectorTerm().addNewMatchExpression().withKey("nvidia.com/gpu.workload.config").withOperator("In")
                .withValues("vm-passthrough", "vm-vgpu").endMatchExpression().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().build();

        assertThat(pod.getAffinity().getNodeAffinity()).isEqualTo(expected);
        assertThat(pod.getAffinity().getPodAffinity()).isNull();
        assertThat(pod.getNodeSelector()).isNullOrEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void toleratesTheNvidiaGpuTaintOnly(Manifests m) {
        assertThat(m.daemonSet().getSpec().getTemplate().getSpec().getTolerations())
                .containsExactly(new Toleration("NoSchedule", "nvidia.com/gpu", "Exists", null, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void isSystemNodeCriticalAndUsesItsOwnServiceAccount(Manifests m) {
        PodSpec pod = m.daemonSet().getSpec().getTemplate().getSpec();

        assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
        assertThat(pod.getServiceAccountName()).isEqualTo("vfio-device-plugin");
        assertThat(pod.getHostNetwork()).as("hostNetwork").isNotEqualTo(true);
        assertThat(pod.getHostPID()).as("hostPID").isNotEqualTo(true);
        assertThat(pod.getHostIPC()).as("hostIPC").isNotEqualTo(true);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void containerRunsWithoutCapabilitiesPrivilegeEscalationOrWritableRoot(Manifests m) {
        assertThat(m.container().getSecurityContext()).isEqualTo(new SecurityContextBuilder()
                .withRunAsUser(0L)
                .withRunAsNonRoot(false)
                .withAllowPrivilegeEscalation(false)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .withReadOnlyRootFilesystem(true)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .build());
        assertThat(m.daemonSet().getSpec().getTemplate().getSpec().getSecurityContext()).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void mountsTheDevicePluginDirectoryVfioSysAndPodResourcesReadOnlyAndATmpForNativeLibraries(Manifests m) {
        assertThat(mounts(m)).containsExactlyInAnyOrder(
                "/var/lib/kubelet/device-plugins <- hostPath /var/lib/kubelet/device-plugins Directory (read-write)",
                "/dev/vfio <- hostPath /dev/vfio DirectoryOrCreate (read-only)",
                "/host/sys <- hostPath /sys Directory (read-only)",
                "/var/lib/kubelet/pod-resources <- hostPath /var/lib/kubelet/pod-resources Directory (read-only)",
                "/tmp <- emptyDir 16Mi (read-write)");
        assertThat(m.daemonSet().getSpec().getTemplate().getSpec().getVolumes()).hasSize(5);
        assertThat((Path) option(serveOptions(m.container()), "--pod-resources-socket")).isEqualTo(Path.of("/var/lib/kubelet/pod-resources/kubelet.sock"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void nodeNameComesFromTheDownwardApiAndReachesNodeNameOption(Manifests m) {
        Container c = m.container();

        // the only other variable is MALLOC_ARENA_MAX (ShippedFlagsTest)
        assertThat(env(c)).containsEntry("NODE_NAME", "downward-api:spec.nodeName").containsOnlyKeys("NODE_NAME", "MALLOC_ARENA_MAX");
        assertThat((String) option(serveOptions(c), "--node-name")).isEqualTo("downward-api:spec.nodeName");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void argsAreAcceptedByTheCliAndPointAtTheMountedHostPaths(Manifests m) {
        CommandSpec serve = serveOptions(m.container());

        assertThat((Path) option(serve, "--device-plugin-dir")).isEqualTo(Path.of(mountPathOf(m, "device-plugins")));
        assertThat((Path) option(serve, "--sysfs-root")).isEqualTo(Path.of(mountPathOf(m, "sys")));
        assertThat(((Path) option(serve, "--dev-root")).resolve("vfio")).isEqualTo(Path.of(mountPathOf(m, "dev-vfio")));
        assertThat(((Path) option(serve, "--pod-resources-socket")).getParent()).isEqualTo(Path.of(mountPathOf(m, "pod-resources")));
        assertThat((boolean) option(serve, "--manage-vgpus")).isFalse();
        assertThat(option(serve, "--kubevirt").toString()).isEqualTo("auto");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void probesAskHealthzAndReadyzOnThePortServeListensOn(Manifests m) {
        Container c = m.container();
        int metricsPort = MetricsAddress.parse(option(serveOptions(c), "--metrics-address")).orElseThrow().getPort();
        Probe liveness = c.getLivenessProbe();
        Probe readiness = c.getReadinessProbe();

        assertThat(c.getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getName()).isEqualTo("metrics");
            assertThat(p.getContainerPort()).isEqualTo(metricsPort);
        });
        assertThat(liveness.getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(liveness.getHttpGet().getPort().getStrVal()).isEqualTo("metrics");
        assertThat(readiness.getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(readiness.getHttpGet().getPort().getStrVal()).isEqualTo("metrics");
        // /healthz waits up to 2 s for the reconcile loop before it answers 503
        assertThat(liveness.getTimeoutSeconds()).isGreaterThan(2);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void aStartupProbeHoldsTheOthersBackUntilThePortIsOpen(Manifests m) {
        Probe startup = m.container().getStartupProbe();

        assertThat(startup).as("startup probe").isNotNull();
        assertThat(startup.getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(startup.getHttpGet().getPort().getStrVal()).isEqualTo("metrics");
        // the metrics server answers just before registration, 0.6 s after the container was created on a real
        // kubelet: the first try after that, and a minute for a slow node before the kubelet restarts the container
        assertThat(startup.getInitialDelaySeconds()).isGreaterThanOrEqualTo(1);
        assertThat(startup.getTimeoutSeconds()).isGreaterThan(2);
        assertThat(startup.getPeriodSeconds() * startup.getFailureThreshold()).isGreaterThanOrEqualTo(60);
        assertThat(m.container().getReadinessProbe().getInitialDelaySeconds()).as("readiness waits for the startup probe instead").isNull();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void requestsAndLimitsAreSizedFromTheMeasuredFootprint(Manifests m) {
        assertThat(m.container().getResources()).isEqualTo(new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity("20m"))
                .addToRequests("memory", new Quantity("128Mi"))
                .addToLimits("memory", new Quantity("256Mi"))
                .build());
    }
}
