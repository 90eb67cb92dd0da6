package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.vfiodp.checkout.Checkout;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * deploy/monitoring rendered on its own and in deploy/overlays/monitoring (the base plus the
 * component) by every kubectl that renders components: what it adds, and that its PodMonitor finds
 * the DaemonSet's pods and port.
 */
class MonitoringManifestsTest {

    record Rendering(Kubectl kubectl, List<HasMetadata> component, List<HasMetadata> overlay, List<HasMetadata> base) {
        @Override
        public String toString() {
            return kubectl.toString();
        }

        DaemonSet daemonSet() {
            return overlay.stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast).findFirst().orElseThrow();
        }
    }

    static Stream<Rendering> renderings() {
        return MonitoringComponent.kubectls().stream()
                .map(k -> new Rendering(k, k.objects("monitoring"), k.objects("overlays/monitoring"), k.objects("base")));
    }

    private static List<String> kindsAndNames(List<HasMetadata> objects) {
        return objects.stream().map(o -> o.getKind() + " " + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName()).toList();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource r) {
        return (Map<String, Object>) r.getAdditionalProperties().get("spec");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renderings")
    void theComponentIsAPodMonitorARuleAndADashboard(Rendering r) {
        assertThat(kindsAndNames(r.component())).containsExactlyInAnyOrder(
                "ConfigMap vfio-device-plugin/vfio-device-plugin-dashboard",
                "PodMonitor vfio-device-plugin/vfio-device-plugin",
                "PrometheusRule vfio-device-plugin/vfio-device-plugin");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renderings")
    void theOverlayIsTheBaseUnchangedPlusTheComponent(Rendering r) {
        List<String> expected = new java.util.ArrayList<>(kindsAndNames(r.base()));
        expected.addAll(kindsAndNames(r.component()));

        assertThat(kindsAndNames(r.overlay())).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(r.overlay()).filteredOn(o -> !(o instanceof GenericKubernetesResource) && !(o instanceof ConfigMap))
                .containsExactlyInAnyOrderElementsOf(r.base());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renderings")
    @SuppressWarnings("unchecked")
    void thePodMonitorScrapesTheDaemonSetsPodsOnTheirMetricsPortWithTheirNode(Rendering r) {
        Map<String, Object> spec = spec(MonitoringComponent.one(r.overlay(), "PodMonitor"));
        DaemonSet ds = r.daemonSet();
        Map<String, Object> endpoint = ((List<Map<String, Object>>) spec.get("podMetricsEndpoints")).getFirst();
        List<ContainerPort> ports = ds.getSpec().getTemplate().getSpec().getContainers().getFirst().getPorts();

        assertThat(MonitoringComponent.one(r.overlay(), "PodMonitor").getMetadata().getNamespace()).isEqualTo(ds.getMetadata().getNamespace());
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf((Map<String, String>) ((Map<String, Object>) spec.get("selector")).get("matchLabels"));
        assertThat(ports).filteredOn(p -> p.getName().equals(endpoint.get("port"))).singleElement()
                .satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(9402));
        assertThat(endpoint.get("path")).isEqualTo("/metrics");
        assertThat((List<Map<String, Object>>) endpoint.get("relabelings")).containsExactly(
                Map.of("sourceLabels", List.of("__meta_kubernetes_pod_node_name"), "targetLabel", "node"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renderings")
    void theDashboardIsAConfigMapGrafanasSidecarPicksUp(Rendering r) throws IOException {
        ConfigMap cm = r.overlay().stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast).findFirst().orElseThrow();

        assertThat(cm.getMetadata().getName()).as("no name hash: the name is stable").isEqualTo("vfio-device-plugin-dashboard");
        assertThat(cm.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        assertThat(cm.getData()).containsExactly(Map.entry("vfio-device-plugin-dashboard.json",
                Files.readString(Checkout.path("deploy/monitoring/vfio-device-plugin-dashboard.json"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renderings")
    @SuppressWarnings("unchecked")
    void everyAlertHasASeverityASummaryAndADescription(Rendering r) {
        List<Map<String, Object>> rules = (List<Map<String, Object>>) ((List<Map<String, Object>>) MonitoringComponent.ruleFile(r.overlay())
                .get("groups")).getFirst().get("rules");

        assertThat(rules).extracting(rule -> rule.get("alert")).containsExactly("VfioDeviceUnhealthy", "VfioResourceNotRegistered",
                "VfioPassthroughBlocked", "VfioKubeVirtCrUnreadable", "VfioPermittedHostDeviceInvalid", "VfioScanFailing", "VfioScanStale", "VfioVgpuLayoutNotConverged",
                "VfioDraDeviceUnhealthy", "VfioDraDriverNotRegistered", "VfioDraSlicesNotPublished", "VfioDraPrepareFailing",
                "VfioDraDeviceClassNotReady");
        assertThat(rules).allSatisfy(rule -> {
            assertThat((Map<String, String>) rule.get("labels")).containsKey("severity");
            Map<String, String> annotations = (Map<String, String>) rule.get("annotations");
            assertThat(annotations).containsOnlyKeys("summary", "description");
            assertThat(annotations.get("description")).as(rule.get("alert") + " says where to look").contains("{{ $labels.node }}");
        });
    }
}
