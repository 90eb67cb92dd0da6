package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.vfiodp.policy.config.ConfigFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine.Model.CommandSpec;

/**
 * charts/vfio-device-plugin, checked by Helm's own code: {@code lint --strict}, {@code template} with the defaults and
 * every combination docs/helm.md documents, and for each choice deploy/ has a kustomization for, the rendered objects
 * equal kustomize's, object by object (every kubectl at hand; only the release's labels and the Namespace, which
 * the user makes for a Helm release, differ). The chart reads deploy/'s RBAC, DeviceClasses, alerts and dashboard
 * itself (files/deploy links there), so a rule added to one of those files reaches the chart unchanged; anything
 * else added to deploy/ fails here until the chart renders it too. Since the RBAC equals kustomize's, RbacTest and
 * DraRbacTest (the rules derived from the calls the code makes) hold for the chart's.
 */
class HelmChartTest {

    /** A choice of values and the kustomization (with components) that renders the same. */
    record Choice(String name, Map<String, Object> values, String kustomization, List<String> components) {
        @Override
        public String toString() {
            return name + " = deploy/" + kustomization + (components.isEmpty() ? "" : " + " + components);
        }
    }

    static Stream<Choice> choices() {
        return Stream.of(
                new Choice("defaults", Map.of(), "base", List.of()),
                new Choice("vgpu.manage", Map.of("vgpu", Map.of("manage", true)), "overlays/vgpu", List.of()),
                new Choice("monitoring.enabled", Map.of("monitoring", Map.of("enabled", true)), "overlays/monitoring", List.of()),
                new Choice("dra.resources=all", Map.of("dra", Map.of("resources", "all")), "dra", List.of()),
                new Choice("gpuOperator.enabled", Map.of("gpuOperator", Map.of("enabled", true)), "gpu-operator", List.of()),
                new Choice("vgpu.manage + monitoring.enabled", Map.of("vgpu", Map.of("manage", true), "monitoring", Map.of("enabled", true)),
                        "overlays/vgpu", List.of("monitoring")),
                new Choice("dra.resources=all + monitoring.enabled", Map.of("dra", Map.of("resources", "all"), "monitoring", Map.of("enabled", true)),
                        "dra", List.of("monitoring")));
    }

    /** Every documented combination, with or without a kustomize twin: each renders, and its pod keeps the rules. */
    static Stream<Map<String, Object>> documented() {
        return Stream.concat(choices().map(Choice::values), Stream.of(
                Map.of("dra", Map.of("resources", List.of("nvidia.com/TU104GL_TESLA_T4"))),
                Map.of("dra", Map.of("resources", "all"), "vgpu", Map.of("manage", true)),
                Map.of("config", Map.of("permittedHostDevices", Map.of("pciHostDevices", List.of(Map.of("pciVendorSelector", "10DE:1EB8",
                        "resourceName", "nvidia.com/TU104GL_TESLA_T4", "externalResourceProvider", true))))),
                Map.of("nodeSelection", Map.of("nfd", true)),
                Map.of("monitoring", Map.of("enabled", true, "dashboard", false, "labels", Map.of("release", "kube-prometheus-stack")))));
    }

    @Test
    void lintStrictIsClean() {
        LintResult lint = HelmChart.lint();

        assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
        // Helm's only remark is a recommendation (an icon); no warning, no error
        assertThat(lint.getMessages()).noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("choices")
    void rendersWhatKustomizeRendersObjectByObject(Choice choice) throws IOException {
        Map<String, Map<String, Object>> chart = new TreeMap<>();
        for (HasMetadata o : HelmChart.objects(choice.values())) {
            assertThat(chart.put(HelmChart.key(o), HelmChart.comparable(o))).as("the chart renders " + HelmChart.key(o) + " twice").isNull();
        }
        for (Rendered k : kustomize(choice)) {
            Map<String, Map<String, Object>> expected = new TreeMap<>();
            for (HasMetadata o : k.objects()) {
                // a Helm release goes into a namespace that exists: the README makes it with the same label
                if (o.getKind().equals("Namespace")) continue;
                expected.put(HelmChart.key(o), HelmChart.comparable(o));
            }
            String where = choice + " by " + k.kubectl() + ": ";
            Set<String> onlyKustomize = new TreeSet<>(expected.keySet());
            onlyKustomize.removeAll(chart.keySet());
            Set<String> onlyChart = new TreeSet<>(chart.keySet());
            onlyChart.removeAll(expected.keySet());
            assertThat(onlyKustomize).as(where + "objects kustomize renders and the chart does not: add them to "
                    + "charts/vfio-device-plugin/templates (docs/helm.md, \"Keeping the chart and deploy/ together\")").isEmpty();
            assertThat(onlyChart).as(where + "objects only the chart renders").isEmpty();
            for (String key : expected.keySet()) {
                assertThat(chart.get(key)).as(where + key + " differs from kustomize's (docs/helm.md, \"Keeping the chart and deploy/ together\")")
                        .isEqualTo(expected.get(key));
            }
        }
    }

    private record Rendered(Kubectl kubectl, List<HasMetadata> objects) {}

    /** The choice's kustomization by every kubectl that renders it; with components, composed in a directory of its own. */
    private static List<Rendered> kustomize(Choice choice) throws IOException {
        if (choice.components().isEmpty()) {
            return Manifests.of(choice.kustomization()).stream().map(m -> new Rendered(m.kubectl(), m.objects())).toList();
        }
        Path dir = Files.createDirectories(Path.of("target", "helm-compare", choice.name().replaceAll("[^a-z0-9.]+", "-")));
        Path deploy = dir.toAbsolutePath().relativize(Kubectl.DEPLOY.toAbsolutePath());
        Files.writeString(dir.resolve("kustomization.yaml"), "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                + "resources:\n  - " + deploy.resolve(choice.kustomization()) + "\ncomponents:\n"
                + String.join("", choice.components().stream().map(c -> "  - " + deploy.resolve(c) + "\n").toList()));
        return MonitoringComponent.kubectls().stream().map(k -> new Rendered(k, k.objectsAt(dir))).toList();
    }

    @ParameterizedTest
    @MethodSource("documented")
    void everyDocumentedCombinationRendersAPodThatKeepsTheRules(Map<String, Object> values) {
        List<HasMetadata> objects = HelmChart.objects(values);
        if (values.containsKey("gpuOperator")) {
            // the Operator runs the pod: the chart renders rights only
            assertThat(objects).noneMatch(DaemonSet.class::isInstance);
            return;
        }
        DaemonSet ds = daemonSet(objects);

        PodSpecRules.check("chart with " + values, ds);
        // the args are serve's: the real command line accepts them
        BaseManifestsTest.serveOptions(ds.getSpec().getTemplate().getSpec().getContainers().getFirst());
    }

    @Test
    void draForAListOfResourcesNamesThemAndAppliesTheDeviceClasses() {
        List<HasMetadata> objects = HelmChart.objects(Map.of("dra", Map.of("resources", List.of("nvidia.com/TU104GL_TESLA_T4", "nvidia.com/GRID_T4-1Q"))));
        CommandSpec serve = BaseManifestsTest.serveOptions(container(daemonSet(objects)));

        assertThat(serve.findOption("--dra-resources").<Object>getValue().toString()).contains("nvidia.com/TU104GL_TESLA_T4", "nvidia.com/GRID_T4-1Q");
        assertThat(objects).extracting(HelmChart::key).contains("DeviceClass -/passthrough.vfio-device-plugin.io",
                "DeviceClass -/tu104gl-tesla-t4.f7ec.nvidia.com.vfio-device-plugin.io", "ClusterRole -/vfio-device-plugin-dra");
        assertThat(HelmChart.objects(Map.of())).extracting(HelmChart::key).noneMatch(k -> k.startsWith("DeviceClass") || k.contains("-dra"));
    }

    @Test
    void aLocalConfigBecomesAConfigMapThatServeReadsWithConfig() throws Exception {
        Map<String, Object> config = Map.of("permittedHostDevices", Map.of("pciHostDevices", List.of(Map.of("pciVendorSelector", "10DE:1EB8",
                "resourceName", "nvidia.com/TU104GL_TESLA_T4", "externalResourceProvider", true))));
        List<HasMetadata> objects = HelmChart.objects(Map.of("config", config));
        ConfigMap map = objects.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast).findFirst().orElseThrow();
        Container c = container(daemonSet(objects));
        Path file = BaseManifestsTest.option(BaseManifestsTest.serveOptions(c), "--config");

        // the real parser reads what serve would read
        ConfigFile.Loaded loaded = ConfigFile.parse("config.yaml", map.getData().get(file.getFileName().toString()));
        assertThat(loaded.permittedHostDevices()).hasValueSatisfying(p -> assertThat(p.toString()).contains("nvidia.com/TU104GL_TESLA_T4"));
        assertThat(c.getVolumeMounts()).anySatisfy(vm -> {
            assertThat(vm.getName()).isEqualTo("config");
            assertThat(Path.of(vm.getMountPath())).isEqualTo(file.getParent());
        });
        assertThat(daemonSet(objects).getSpec().getTemplate().getSpec().getVolumes())
                .filteredOn(v -> v.getConfigMap() != null).singleElement()
                .satisfies(v -> assertThat(v.getConfigMap().getName()).isEqualTo(map.getMetadata().getName()));
    }

    @Test
    void theConventionalValuesReachThePod() {
        List<HasMetadata> objects = HelmChart.objects(Map.of(
                "image", Map.of("repository", "registry.example.com/platform/vfio-device-plugin", "tag", "0.1.0-test", "pullPolicy", "Always"),
                "imagePullSecrets", List.of(Map.of("name", "registry")),
                "nodeSelector", Map.of("kubernetes.io/arch", "amd64"),
                "tolerations", List.of(Map.of("key", "dedicated", "operator", "Exists")),
                "resources", Map.of("requests", Map.of("cpu", "50m", "memory", "192Mi"), "limits", Map.of("memory", "384Mi")),
                "priorityClassName", "gpu-agents"));
        PodSpec pod = daemonSet(objects).getSpec().getTemplate().getSpec();
        Container c = pod.getContainers().getFirst();

        assertThat(c.getImage()).isEqualTo("registry.example.com/platform/vfio-device-plugin:0.1.0-test");
        assertThat(c.getImagePullPolicy()).isEqualTo("Always");
        assertThat(pod.getImagePullSecrets()).containsExactly(new LocalObjectReference("registry"));
        assertThat(pod.getNodeSelector()).containsExactly(Map.entry("kubernetes.io/arch", "amd64"));
        assertThat(pod.getTolerations()).containsExactly(new Toleration(null, "dedicated", "Exists", null, null));
        assertThat(c.getResources().getLimits()).containsExactly(Map.entry("memory", new Quantity("384Mi")));
        assertThat(pod.getPriorityClassName()).isEqualTo("gpu-agents");
    }

    @Test
    void theImageTagDefaultsToTheChartsAppVersion() throws IOException {
        String appVersion = ReleaseVersionTest.chartField("appVersion");

        assertThat(container(daemonSet(HelmChart.objects(Map.of()))).getImage()).isEqualTo("ghcr.io/vfio-device-plugin/vfio-device-plugin:" + appVersion);
    }

    @Test
    void nodeSelectionOrsTheChosenLabelsAndAffinityReplacesThem() {
        PodSpec nfdOnly = daemonSet(HelmChart.objects(Map.of("nodeSelection", Map.of("label", false, "gpuOperatorLabels", false, "nfd", true))))
                .getSpec().getTemplate().getSpec();
        assertThat(nfdOnly.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms())
                .singleElement().satisfies(t -> assertThat(t.getMatchExpressions()).singleElement().satisfies(e -> {
                    assertThat(e.getKey()).isEqualTo("feature.node.kubernetes.io/pci-10de.present");
                    assertThat(e.getValues()).containsExactly("true");
                }));

        Map<String, Object> own = Map.of("nodeAffinity", Map.of("requiredDuringSchedulingIgnoredDuringExecution", Map.of("nodeSelectorTerms",
                List.of(Map.of("matchExpressions", List.of(Map.of("key", "gpu", "operator", "Exists")))))));
        PodSpec replaced = daemonSet(HelmChart.objects(Map.of("affinity", own))).getSpec().getTemplate().getSpec();
        assertThat(replaced.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms())
                .singleElement().satisfies(t -> assertThat(t.getMatchExpressions().getFirst().getKey()).isEqualTo("gpu"));
    }

    @Test
    void theGpuOperatorsWayRendersOnlyTheRightsItsAccountLacks() {
        List<HasMetadata> objects = HelmChart.objects(Map.of("gpuOperator", Map.of("enabled", true, "namespace", "nvidia-gpu-operator")));

        assertThat(objects).extracting(HasMetadata::getKind).containsExactlyInAnyOrder("ClusterRole", "ClusterRoleBinding");
        assertThat(Kubectl.load(HelmChart.template(Map.of("gpuOperator", Map.of("enabled", true, "namespace", "nvidia-gpu-operator")))))
                .filteredOn(o -> o.getKind().endsWith("Binding")).allSatisfy(b -> assertThat(io.fabric8.kubernetes.client.utils.Serialization
                        .asJson(b)).contains("\"namespace\":\"nvidia-gpu-operator\"", "\"name\":\"nvidia-sandbox-device-plugin\""));
    }

    /** values.schema.json: a wrong value fails with a message that names its key. */
    @Test
    void aWrongValueFailsNamingTheKey() {
        assertThatThrownBy(() -> HelmChart.template(Map.of("image", Map.of("pullPolicy", "Sometimes")))).hasMessageContaining("pullPolicy");
        assertThatThrownBy(() -> HelmChart.template(Map.of("dra", Map.of("resources", "some")))).hasMessageContaining("resources");
        assertThatThrownBy(() -> HelmChart.template(Map.of("vgpu", Map.of("manage", "yes")))).hasMessageContaining("manage");
        assertThatThrownBy(() -> HelmChart.template(Map.of("monitoring", Map.of("enable", true)))).hasMessageContaining("enable");
        assertThatThrownBy(() -> HelmChart.template(Map.of("serve", Map.of("kubevirt", "on")))).hasMessageContaining("kubevirt");
    }

    private static DaemonSet daemonSet(List<HasMetadata> objects) {
        List<DaemonSet> found = new ArrayList<>(objects.stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast).toList());
        assertThat(found).as("DaemonSets rendered").hasSize(1);
        return found.getFirst();
    }

    private static Container container(DaemonSet ds) {
        return ds.getSpec().getTemplate().getSpec().getContainers().getFirst();
    }
}
