package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.nio.file.Path;
import java.util.List;

/**
 * What every shipped DaemonSet's pod must do, whichever variant (kustomize's or the chart's) renders it, from running
 * the image on a real kubelet with containerd and runc.
 */
final class PodSpecRules {

    /**
     * Paths the container runtime sets up or the JVM reads inside the container: a host path mounted on one of them, or
     * on a directory above one, hides the container's own. Host /sys over /sys hid /sys/fs/cgroup, and the JVM then
     * sized its heap by the host's memory ("container memory limit ignored").
     */
    static final List<Path> CONTAINER_OWN = List.of("/sys/fs/cgroup", "/proc/self", "/dev/null", "/dev/shm", "/etc/hosts",
            "/etc/resolv.conf", "/etc/hostname", "/var/run/secrets/kubernetes.io/serviceaccount", "/opt/vfio-device-plugin")
            .stream().map(Path::of).toList();

    static final String POD_RESOURCES = "/var/lib/kubelet/pod-resources";

    private PodSpecRules() {}

    static void check(String what, DaemonSet ds) {
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        Container c = pod.getContainers().getFirst();
        for (VolumeMount vm : c.getVolumeMounts()) {
            Volume v = pod.getVolumes().stream().filter(x -> x.getName().equals(vm.getName())).findFirst().orElseThrow();
            if (v.getHostPath() == null) continue;
            Path at = Path.of(vm.getMountPath());
            assertThat(CONTAINER_OWN).as(what + ": host path " + v.getHostPath().getPath() + " mounted at " + at
                    + " hides the container's own").noneMatch(own -> own.startsWith(at));
        }
        assertThat(c.getVolumeMounts()).as(what + ": the kubelet's PodResources socket directory, read-only")
                .anySatisfy(vm -> {
                    assertThat(vm.getMountPath()).isEqualTo(POD_RESOURCES);
                    assertThat(vm.getReadOnly()).isTrue();
                });
        assertThat(pod.getVolumes()).as(what + ": its host path").anySatisfy(v -> {
            assertThat(v.getHostPath()).isNotNull();
            assertThat(v.getHostPath().getPath()).isEqualTo(POD_RESOURCES);
        });
        assertThat(c.getStartupProbe()).as(what + ": a startup probe, so the first readiness probe waits for the port").isNotNull();
    }
}
