package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.dra.Claims;
import io.vfiodp.dra.classes.ExtendedResourceClasses;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import io.vfiodp.serve.HostTree;
import io.vfiodp.policy.ResourceName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --dra-resources} as a process, as the deploy/dra DaemonSet runs it: a copy of the
 * t4-numa node, the device-plugin kubelet and the DRA kubelet simulators, and a mock API server
 * with the Node. The one resource goes through DRA and nowhere else; a claim is prepared; a group
 * node that disappears taints the device in the slice, and becomes an Event and metrics.
 */
class ServeDraTest {

    /**
     * Generous: a serve JVM of its own starts and scans first, which takes many times its quiet time on a 2-core
     * machine that other builds and the other test fork share.
     */
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String NODE = "gpu-node-1";
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";

    @TempDir Path temp;

    private List<String> serve(Path node, Path plugins, String... more) {
        List<String> args = new ArrayList<>(List.of("serve", "--sysfs-root", node.resolve("sys").toString(), "--dev-root",
                node.resolve("dev").toString(), "--device-plugin-dir", plugins.toString(), "--metrics-address", "127.0.0.1:0",
                "--kubevirt", "off", "--dra-registry-dir", temp.resolve("plugins_registry").toString(),
                "--dra-plugin-dir", temp.resolve("plugins/vfio-device-plugin.io").toString(), "--cdi-dir", temp.resolve("cdi").toString()));
        args.addAll(List.of(more));
        return args;
    }

    private static List<String> deviceNames(ResourceSlice s) {
        return s.getSpec().getDevices().stream().map(d -> d.getName()).toList();
    }

    /** {@code <device> <value>} of every NoSchedule taint of ours in the slice. */
    private static List<String> taintValues(ResourceSlice s) {
        return s.getSpec().getDevices().stream().filter(d -> d.getTaints() != null).flatMap(d -> d.getTaints().stream()
                .filter(t -> t.getKey().equals("vfio-device-plugin.io/unhealthy") && t.getEffect().equals("NoSchedule"))
                .map(t -> d.getName() + " " + t.getValue())).toList();
    }

    @Test
    void aResourceRoutedToDraIsPublishedPreparedAndHealthWatchedAndNeverOfferedToTheDevicePlugins() throws Exception {
        HostTree host = HostTree.copy(Path.of("src/test/resources/sysfs-fixtures/t4-numa"), temp.resolve("node"));
        Path plugins = Files.createDirectories(temp.resolve("device-plugins"));
        Path registry = Files.createDirectories(temp.resolve("plugins_registry"));
        try (MockKubeApi api = MockKubeApi.start();
             KubeletSimulator kubelet = KubeletSimulator.start(plugins);
             DraKubeletSimulator draKubelet = new DraKubeletSimulator(registry, DraKubeletSimulator.KUBELET_136)) {
            api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
            // as the operator applies it once: what inventory --device-classes prints for the resource
            api.client().dynamicResourceAllocation().v1().deviceClasses().resource(((ExtendedResourceClasses.Named) ExtendedResourceClasses.of(
                    "vfio-device-plugin.io", ResourceName.of(T4))).deviceClass().toDeviceClass()).create();
            try (ServeChild serve = ServeChild.start(serve(host.root(), plugins, "--dra-resources", T4),
                    Map.of("KUBERNETES_MASTER", "http://127.0.0.1:" + api.port(), "NODE_NAME", NODE), temp)) {
                await().atMost(WAIT).until(() -> draKubelet.registrationSockets().size() == 1);
                draKubelet.register(draKubelet.registrationSockets().getFirst());
                await().atMost(WAIT).until(() -> serve.get("/readyz").equals("ready: 0 resource(s) and the DRA driver registered with the kubelet\n"));
                List<ResourceSlice> slices = await().atMost(WAIT).until(
                        () -> api.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems(), l -> l.size() == 1);
                // 0000:b2:00.0, whose group node is missing, is in it with a taint that says so
                assertThat(deviceNames(slices.getFirst())).containsExactly("pci-0000-1a-00-0", "pci-0000-1b-00-0", "pci-0000-b1-00-0",
                        "pci-0000-b2-00-0");
                assertThat(taintValues(slices.getFirst())).containsExactly("pci-0000-b2-00-0 IOMMU-group-65-dev-vfio-65-missing");
                assertThat(slices.getFirst().getSpec().getNodeName()).isEqualTo(NODE);

                ResourceClaim claim = Claims.create(api.client(), Claims.allocated("vm-gpu", "uid-1", Claims.result("gpu",
                        "vfio-device-plugin.io", NODE, "pci-0000-b1-00-0")));
                NodePrepareResourceResponse prepared = draKubelet.prepare(DraKubeletSimulator.claim("vms", "vm-gpu", claim.getMetadata().getUid()))
                        .getClaimsOrThrow(claim.getMetadata().getUid());
                assertThat(prepared.getError()).isEmpty();
                String uid = claim.getMetadata().getUid();
                assertThat(prepared.getDevices(0).getCdiDeviceIdsList()).containsExactly("vfio-device-plugin.io/vfio=" + uid + "-pci-0000-b1-00-0",
                        "vfio-device-plugin.io/metadata=" + uid + "_gpu");

                host.removeGroupNode(24);
                await().atMost(WAIT).until(() -> taintValues(api.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems()
                        .getFirst()), taints -> taints.equals(List.of("pci-0000-1a-00-0 IOMMU-group-24-dev-vfio-24-missing",
                        "pci-0000-b2-00-0 IOMMU-group-65-dev-vfio-65-missing")));
                List<Event> events = await().atMost(WAIT).until(api::nodeEvents, l -> !l.isEmpty());
                assertThat(events).singleElement().satisfies(e -> {
                    assertThat(e.getReason()).isEqualTo("VfioDeviceUnhealthy");
                    assertThat(e.getMessage()).isEqualTo(T4 + " device 0000:1a:00.0 is Unhealthy: IOMMU group 24: /dev/vfio/24 missing");
                });
                String metrics = serve.get("/metrics");
                assertThat(metrics.lines().filter(l -> l.startsWith("vfio_dp_dra_") || l.startsWith("vfio_dp_health_transitions_total{")))
                        .containsExactly(
                                "vfio_dp_dra_device_class_ready{device_class=\"tu104gl-tesla-t4.f7ec.nvidia.com.vfio-device-plugin.io\","
                                        + "driver=\"vfio-device-plugin.io\",resource=\"" + T4 + "\"} 1.0",
                                "vfio_dp_dra_devices{driver=\"vfio-device-plugin.io\",health=\"Healthy\",resource=\"" + T4 + "\"} 2.0",
                                "vfio_dp_dra_devices{driver=\"vfio-device-plugin.io\",health=\"Unhealthy\",resource=\"" + T4 + "\"} 2.0",
                                "vfio_dp_dra_prepare_errors_total{driver=\"vfio-device-plugin.io\"} 0.0",
                                "vfio_dp_dra_prepared_claims{driver=\"vfio-device-plugin.io\"} 1.0",
                                "vfio_dp_dra_registered{driver=\"vfio-device-plugin.io\"} 1.0",
                                "vfio_dp_dra_slices_published{driver=\"vfio-device-plugin.io\"} 1.0",
                                "vfio_dp_health_transitions_total{health=\"Unhealthy\",reason=\"IOMMU group 24: /dev/vfio/24 missing\",resource=\""
                                        + T4 + "\"} 1.0");
                assertThat(kubelet.registrations()).isEmpty();
            }
        }
    }

    @Test
    void draWithoutANodeNameDoesNotStartAndSaysWhatIsMissing() throws Exception {
        HostTree host = HostTree.copy(Path.of("src/test/resources/sysfs-fixtures/t4-numa"), temp.resolve("node"));
        Path plugins = Files.createDirectories(temp.resolve("device-plugins"));

        ServeChild serve = ServeChild.start(serve(host.root(), plugins, "--dra-resources", "all"), Map.of(), temp);

        assertThat(serve.awaitExit(WAIT)).isEqualTo(1);
        assertThat(serve.lines()).contains("vfio-device-plugin serve: --dra-resources all needs this node's name (--node-name, or NODE_NAME"
                + " from the downward API's spec.nodeName) and a Kubernetes API (run in a pod, or name a kubeconfig in KUBECONFIG): the DRA"
                + " driver publishes this node's devices as ResourceSlices and reads the ResourceClaims the kubelet prepares");
    }
}
