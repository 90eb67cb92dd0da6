package io.vfiodp.deploy;

import static io.vfiodp.deploy.BaseManifestsTest.mountPathOf;
import static io.vfiodp.deploy.BaseManifestsTest.option;
import static io.vfiodp.deploy.BaseManifestsTest.serveOptions;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleRefBuilder;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * deploy/overlays/vgpu is the base plus exactly what {@code serve --manage-vgpus} needs: the
 * flag and its two paths, a privileged container (sysfs writes), /sys writable, the PodResources
 * socket, the state directory, and get/patch on nodes. Each test compares with the base rendered
 * by the same kubectl.
 */
class VgpuOverlayTest {

    static Stream<Manifests> overlay() {
        return Manifests.of("overlays/vgpu").stream();
    }

    private static Manifests baseBySameKubectl(Manifests overlay) {
        return Manifests.of("base").stream().filter(b -> b.kubectl().equals(overlay.kubectl())).findFirst().orElseThrow();
    }

    /** Mounts sorted by path and volumes by name: kustomize versions merge new entries in at different places. */
    private static DaemonSet normalized(DaemonSet ds) {
        DaemonSet copy = new DaemonSetBuilder(ds).build();
        PodSpec pod = copy.getSpec().getTemplate().getSpec();
        pod.getContainers().forEach(c -> c.setVolumeMounts(c.getVolumeMounts().stream()
                .sorted(Comparator.comparing(VolumeMount::getMountPath)).toList()));
        pod.setVolumes(pod.getVolumes().stream().sorted(Comparator.comparing(v -> v.getName())).toList());
        return copy;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlay")
    void daemonSetIsTheBaseWithVgpuManagementAndNothingElse(Manifests m) {
        DaemonSet expected = new DaemonSetBuilder(baseBySameKubectl(m).daemonSet()).build();
        PodSpec pod = expected.getSpec().getTemplate().getSpec();
        Container c = pod.getContainers().getFirst();
        List<String> args = new ArrayList<>(c.getArgs());
        args.addAll(List.of("--manage-vgpus", "--state-dir=/var/lib/vfio-device-plugin",
                "--pod-resources-socket=/var/lib/kubelet/pod-resources/kubelet.sock"));
        c.setArgs(args);
        c.getSecurityContext().setPrivileged(true);
        c.getSecurityContext().setAllowPrivilegeEscalation(true);
        List<VolumeMount> mounts = new ArrayList<>(c.getVolumeMounts().stream()
                .map(vm -> vm.getName().equals("sys") ? new VolumeMountBuilder(vm).withReadOnly(false).build() : vm).toList());
        mounts.add(new VolumeMountBuilder().withName("vgpu-state").withMountPath("/var/lib/vfio-device-plugin").build());
        c.setVolumeMounts(mounts);
        pod.getVolumes().add(new VolumeBuilder().withName("vgpu-state")
                .withNewHostPath().withPath("/var/lib/vfio-device-plugin").withType("DirectoryOrCreate").endHostPath().build());

        assertThat(normalized(m.daemonSet())).isEqualTo(normalized(expected));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlay")
    void vgpuArgsAreAcceptedByTheCliAndPointAtTheMounts(Manifests m) {
        var serve = serveOptions(m.container());

        assertThat((boolean) option(serve, "--manage-vgpus")).isTrue();
        assertThat((Path) option(serve, "--state-dir")).isEqualTo(Path.of(mountPathOf(m, "vgpu-state")));
        assertThat(((Path) option(serve, "--pod-resources-socket")).getParent()).isEqualTo(Path.of(mountPathOf(m, "pod-resources")));
        assertThat((Path) option(serve, "--sysfs-root")).isEqualTo(Path.of(mountPathOf(m, "sys")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlay")
    void addsOnlyTheNodeGetAndPatchRoleAndItsBinding(Manifests m) {
        List<String> added = new ArrayList<>(m.kindsAndNames());
        added.removeAll(baseBySameKubectl(m).kindsAndNames());

        assertThat(added).containsExactlyInAnyOrder("ClusterRole -/vfio-device-plugin-vgpu", "ClusterRoleBinding -/vfio-device-plugin-vgpu");
        assertThat(m.one(ClusterRole.class, "vfio-device-plugin-vgpu").getRules()).containsExactly(
                new PolicyRuleBuilder().withApiGroups("").withResources("nodes").withVerbs("get", "patch").build());
        ClusterRoleBinding binding = m.one(ClusterRoleBinding.class, "vfio-device-plugin-vgpu");
        assertThat(binding.getRoleRef()).isEqualTo(new RoleRefBuilder().withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole").withName("vfio-device-plugin-vgpu").build());
        assertThat(binding.getSubjects()).containsExactly(new SubjectBuilder().withKind("ServiceAccount")
                .withName("vfio-device-plugin").withNamespace("vfio-device-plugin").build());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlay")
    void leavesEveryOtherObjectOfTheBaseAsItIs(Manifests m) {
        for (HasMetadata base : baseBySameKubectl(m).objects()) {
            if (base instanceof DaemonSet) continue;
            assertThat(m.one(base.getClass(), base.getMetadata().getName())).as(base.getKind() + " " + base.getMetadata().getName())
                    .isEqualTo(base);
        }
    }
}
