package io.vfiodp.deploy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The NVIDIA GPU Operator's sandbox device plugin as the Operator deploys it, written from the
 * facts of its state {@code state-sandbox-device-plugin} (a ServiceAccount, a Role and a ClusterRole
 * with their bindings, a DaemonSet) and of {@code TransformSandboxDevicePlugin} in its controllers,
 * which fills in the ClusterPolicy's {@code sandboxDevicePlugin}: the image from repository, image
 * and version ({@code repository/image:version}, or {@code @version} for a {@code sha256:} digest),
 * the args only when the policy lists some, and the env set or appended by name.
 *
 * <p>The Operator labels a node {@code nvidia.com/gpu.deploy.sandbox-device-plugin=true} when its
 * {@code nvidia.com/gpu.workload.config} is {@code vm-passthrough} or {@code vm-vgpu}; the DaemonSet
 * selects that label. Its validation init containers run the Operator's validator image, not the
 * plugin's, and are left out here.
 */
final class GpuOperatorSandbox {

    static final String NAMESPACE = "gpu-operator";
    static final String NAME = "nvidia-sandbox-device-plugin";
    static final String DAEMONSET = "nvidia-sandbox-device-plugin-daemonset";
    static final String CONTAINER = "nvidia-sandbox-device-plugin-ctr";
    static final String DEPLOY_LABEL = "nvidia.com/gpu.deploy.sandbox-device-plugin";
    /** The workload configurations whose nodes the Operator gives {@link #DEPLOY_LABEL}. */
    static final List<String> WORKLOAD_CONFIGS = List.of("vm-passthrough", "vm-vgpu");

    /** The ClusterPolicy's {@code spec.sandboxDevicePlugin}, as far as it shapes the pod. */
    record Spec(String repository, String image, String version, List<String> args, Map<String, String> env) {
        Spec {
            args = List.copyOf(args);
            env = new LinkedHashMap<>(env);
        }

        /** The Operator's own default (its Helm values): NVIDIA's kubevirt-gpu-device-plugin. */
        static Spec nvidiaDefault() {
            return new Spec("nvcr.io/nvidia", "kubevirt-gpu-device-plugin", "v1.6.0", List.of(), Map.of());
        }

        /** The patch docs/gpu-operator.md gives: our image, nothing else. */
        static Spec vfioDevicePlugin(String version) {
            return new Spec("ghcr.io/vfio-device-plugin", "vfio-device-plugin", version, List.of(), Map.of());
        }

        /** The image path the Operator composes. */
        String imagePath() {
            Objects.requireNonNull(repository);
            return version.startsWith("sha256:") ? repository + "/" + image + "@" + version : repository + "/" + image + ":" + version;
        }
    }

    private GpuOperatorSandbox() {}

    /** The DaemonSet after the Operator's transform. */
    static DaemonSet daemonSet(Spec spec) {
        List<EnvVar> env = new ArrayList<>(List.of(
                new EnvVarBuilder().withName("NODE_NAME").withNewValueFrom().withNewFieldRef("v1", "spec.nodeName").endValueFrom().build(),
                new EnvVarBuilder().withName("POD_NAMESPACE").withNewValueFrom().withNewFieldRef("v1", "metadata.namespace").endValueFrom().build()));
        spec.env().forEach((name, value) -> {
            env.removeIf(e -> e.getName().equals(name));
            env.add(new EnvVarBuilder().withName(name).withValue(value).build());
        });
        ContainerBuilder container = new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(spec.imagePath())
                .withImagePullPolicy("IfNotPresent")
                .withEnv(env)
                .withNewSecurityContext().withPrivileged(true).endSecurityContext()
                .withVolumeMounts(
                        new VolumeMountBuilder().withName("device-plugin").withMountPath("/var/lib/kubelet/device-plugins").build(),
                        new VolumeMountBuilder().withName("vfio").withMountPath("/dev/vfio").build(),
                        new VolumeMountBuilder().withName("cdi-root").withMountPath("/var/run/cdi").build());
        if (!spec.args().isEmpty()) container.withArgs(spec.args());
        return new DaemonSetBuilder()
                .withNewMetadata().withName(DAEMONSET).withNamespace(NAMESPACE).addToLabels("app", DAEMONSET).endMetadata()
                .withNewSpec()
                    .withNewSelector().addToMatchLabels("app", DAEMONSET).endSelector()
                    .withNewTemplate()
                        .withNewMetadata().addToLabels("app", DAEMONSET).endMetadata()
                        .withNewSpec()
                            .addToNodeSelector(DEPLOY_LABEL, "true")
                            .addNewToleration().withKey("nvidia.com/gpu").withOperator("Exists").withEffect("NoSchedule").endToleration()
                            .withPriorityClassName("system-node-critical")
                            .withServiceAccountName(NAME)
                            .withContainers(container.build())
                            .withVolumes(
                                    new VolumeBuilder().withName("device-plugin").withNewHostPath().withPath("/var/lib/kubelet/device-plugins").endHostPath().build(),
                                    new VolumeBuilder().withName("run-nvidia-validations").withNewHostPath().withPath("/run/nvidia/validations")
                                            .withType("DirectoryOrCreate").endHostPath().build(),
                                    new VolumeBuilder().withName("vfio").withNewHostPath().withPath("/dev/vfio").endHostPath().build(),
                                    new VolumeBuilder().withName("cdi-root").withNewHostPath().withPath("/var/run/cdi")
                                            .withType("DirectoryOrCreate").endHostPath().build())
                        .endSpec()
                    .endTemplate()
                .endSpec()
                .build();
    }

    static Container container(DaemonSet ds) {
        return ds.getSpec().getTemplate().getSpec().getContainers().getFirst();
    }

    /**
     * The plugin's ServiceAccount and its rights: in the Operator's namespace pods (and NFD's
     * nodefeatures, and OpenShift's privileged SCC), cluster-wide only {@code get} on nodes and pods
     * (and OpenShift's clusterversions). No KubeVirt CRs, no Events, no Node list, watch or patch.
     */
    static List<HasMetadata> rbac() {
        var subject = new SubjectBuilder().withKind("ServiceAccount").withName(NAME).withNamespace(NAMESPACE).build();
        return List.of(
                new ServiceAccountBuilder().withNewMetadata().withName(NAME).withNamespace(NAMESPACE).endMetadata().build(),
                new RoleBuilder().withNewMetadata().withName(NAME).withNamespace(NAMESPACE).endMetadata()
                        .withRules(
                                new PolicyRuleBuilder().withApiGroups("security.openshift.io").withResources("securitycontextconstraints")
                                        .withVerbs("use").withResourceNames("privileged").build(),
                                new PolicyRuleBuilder().withApiGroups("").withResources("pods")
                                        .withVerbs("create", "get", "list", "watch", "delete").build(),
                                new PolicyRuleBuilder().withApiGroups("nfd.k8s-sigs.io").withResources("nodefeatures")
                                        .withVerbs("create", "get", "list", "watch", "update").build())
                        .build(),
                new ClusterRoleBuilder().withNewMetadata().withName(NAME).endMetadata()
                        .withRules(
                                new PolicyRuleBuilder().withApiGroups("config.openshift.io").withResources("clusterversions")
                                        .withVerbs("get", "list").build(),
                                new PolicyRuleBuilder().withApiGroups("").withResources("nodes", "pods").withVerbs("get").build())
                        .build(),
                new RoleBindingBuilder().withNewMetadata().withName(NAME).withNamespace(NAMESPACE).endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "Role", NAME).withSubjects(subject).build(),
                new ClusterRoleBindingBuilder().withNewMetadata().withName(NAME).endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", NAME).withSubjects(subject).build());
    }
}
