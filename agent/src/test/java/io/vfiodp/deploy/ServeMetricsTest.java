package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.vfiodp.checkout.Checkout;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.kube.LauncherPodFixtures;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.testkit.pods.NodePods;
import io.vfiodp.testkit.pods.PodResourcesServer;
import io.vfiodp.serve.HostTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code serve}'s {@code /metrics} really answers, scraped once from a run that gives every
 * metric a sample: {@code serve --kubevirt auto --manage-vgpus} on a copy of the t4-vgpu node,
 * with the kubelet simulator (registration, a restart, an allocation and a refused one), a removed
 * {@code /dev/vfio} group node (a health change), a KubeVirt API without a CR (a VM's virt-launcher pod
 * and its VMI there, the pod holding a vGPU in the kit's PodResources), a {@code --config}
 * with an invalid entry and the 1Q vGPUs routed to the DRA driver (no DRA kubelet: it stays
 * unregistered). Prometheus's {@code promtool} checks the exposition, and the monitoring
 * component's rules and dashboard may name only what it holds.
 */
class ServeMetricsTest {

    /**
     * Generous: a serve JVM of its own starts and scans first, which takes many times its quiet time on a 2-core
     * machine that other builds and the other test fork share.
     */
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String Q2 = "nvidia.com/GRID_T4-2Q";
    private static final String LAUNCHER = "virt-launcher-vm1-x7k2p";
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{.*})? ");

    @TempDir static Path temp;
    private static String exposition;

    @BeforeAll
    static void scrapeAServeThatDidEverything() throws Exception {
        HostTree host = HostTree.copy(Path.of("src/test/resources/sysfs-fixtures/t4-vgpu"), temp.resolve("node"));
        Path plugins = Files.createDirectories(temp.resolve("device-plugins"));
        Path config = Files.writeString(temp.resolve("config.yaml"), """
                permittedHostDevices:
                  mediatedDevices:
                  - mdevNameSelector: GRID_T4-1Q
                    resourceName: nvidia.com/GRID_T4-1Q
                    externalResourceProvider: true
                  - mdevNameSelector: GRID_T4-2Q
                    resourceName: nvidia.com/GRID_T4-2Q
                    externalResourceProvider: true
                  - mdevNameSelector: GRID_T4-4Q
                    resourceName: GRID_T4-4Q
                    externalResourceProvider: true
                mediatedDevicesConfiguration:
                  mediatedDeviceTypes: [GRID_T4-2Q]
                """);
        NodePods pods = new NodePods();
        try (MockKubeApi api = MockKubeApi.start().withKubeVirtCrd().withVmiCrd();
             KubeletSimulator kubelet = KubeletSimulator.start(plugins);
             PodResourcesServer podResources = PodResourcesServer.start(temp.resolve("pod-resources.sock"), pods::list)) {
            api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-node-1").endMetadata().build()).create();
            LauncherPodFixtures.createVm(api.client(), "vms", LAUNCHER, "gpu-node-1", "vm1", Optional.of("vm1"));
            List<String> args = List.of("serve", "--sysfs-root", host.sys().toString(), "--dev-root", host.dev().toString(),
                    "--device-plugin-dir", plugins.toString(), "--metrics-address", "127.0.0.1:0", "--config", config.toString(),
                    "--manage-vgpus", "--state-dir", temp.resolve("state").toString(),
                    "--pod-resources-socket", temp.resolve("pod-resources.sock").toString(),
                    "--dra-resources", "nvidia.com/GRID_T4-1Q", "--dra-registry-dir", Files.createDirectories(temp.resolve("plugins_registry")).toString(),
                    "--dra-plugin-dir", temp.resolve("plugins/vfio-device-plugin.io").toString(), "--cdi-dir", temp.resolve("cdi").toString());
            try (ServeChild serve = ServeChild.start(args, Map.of("KUBERNETES_MASTER", "http://127.0.0.1:" + api.port(),
                    "NODE_NAME", "gpu-node-1"), temp)) {
                kubelet.awaitRegistrations(List.of(Q2), 1, WAIT);
                // the VM's pod gets the vGPU, as the kubelet admits it once the device is listed: Allocate, then PodResources lists it
                kubelet.watch(Q2).awaitUpdate(u -> u.getDevicesList().stream().anyMatch(d -> d.getID().startsWith("e26b8d05")), WAIT);
                assertThat(pods.admit(kubelet, "vms", LAUNCHER, List.of(NodePods.ContainerAsk.named("compute", Q2,
                        List.of("e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64"))))).isInstanceOf(NodePods.Admission.Admitted.class);
                try {
                    kubelet.allocate(Q2, List.of(List.of("no-such-device")));
                } catch (io.grpc.StatusRuntimeException expected) {
                    // counted as a refused allocation
                }
                host.removeGroupNode(103);
                kubelet.restart();
                kubelet.awaitRegistrations(List.of(Q2), 2, WAIT);
                exposition = await().atMost(WAIT).until(() -> serve.get("/metrics"),
                        text -> text.contains("vfio_dp_reregistrations_total{") && text.contains("vfio_dp_health_transitions_total{")
                                && text.contains("vfio_dp_resource_registered{resource=\"" + Q2 + "\"} 1")
                                && text.contains("vfio_dp_dra_devices{") && text.contains("vfio_dp_dra_device_class_ready{")
                                && text.contains("vfio_dp_device_holder_info{") && text.contains("vm=\"vm1\""));
            }
        }
    }

    @AfterAll
    static void forget() {
        exposition = null;
    }

    /** The metric family of every sample ({@code _bucket}, {@code _sum}, {@code _count} and {@code _total} as exposed). */
    static Set<String> sampleNames(String text) {
        Set<String> names = new TreeSet<>();
        for (String line : text.lines().toList()) {
            if (line.startsWith("#") || line.isBlank()) continue;
            Matcher m = SAMPLE.matcher(line);
            if (!m.find()) throw new AssertionError("not a sample line: " + line);
            names.add(m.group(1));
        }
        return names;
    }

    @Test
    void exposesTheseMetrics() {
        assertThat(sampleNames(exposition)).containsExactly(
                "vfio_dp_allocation_errors_total",
                "vfio_dp_allocations_total",
                "vfio_dp_build_info",
                "vfio_dp_config_entry_errors",
                "vfio_dp_device_holder_info",
                "vfio_dp_device_holders_known",
                "vfio_dp_devices",
                "vfio_dp_dra_device_class_ready",
                "vfio_dp_dra_devices",
                "vfio_dp_dra_prepare_errors_total",
                "vfio_dp_dra_prepared_claims",
                "vfio_dp_dra_registered",
                "vfio_dp_dra_slices_published",
                "vfio_dp_health_transitions_total",
                "vfio_dp_kubevirt_cr_readable",
                "vfio_dp_last_successful_scan_timestamp_seconds",
                "vfio_dp_passthrough_possible",
                "vfio_dp_reconcile_duration_seconds_bucket",
                "vfio_dp_reconcile_duration_seconds_count",
                "vfio_dp_reconcile_duration_seconds_sum",
                "vfio_dp_registrations_total",
                "vfio_dp_reregistrations_total",
                "vfio_dp_resource_registered",
                "vfio_dp_scan_duration_seconds_bucket",
                "vfio_dp_scan_duration_seconds_count",
                "vfio_dp_scan_duration_seconds_sum",
                "vfio_dp_scan_failures_total",
                "vfio_dp_vfio_available",
                "vfio_dp_vgpu_layout_state");
    }

    @Test
    void theVmsPodHoldsItsVgpuAsOneSeriesWithItsVmiAndVm() {
        assertThat(exposition.lines().filter(l -> l.startsWith("vfio_dp_device_holder_info{"))).containsExactly(
                "vfio_dp_device_holder_info{claim=\"\",container=\"compute\",device=\"e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64\","
                        + "namespace=\"vms\",pod=\"" + LAUNCHER + "\",resource=\"" + Q2 + "\",vm=\"vm1\",vmi=\"vm1\"} 1.0");
        assertThat(exposition).contains("vfio_dp_device_holders_known 1.0");
    }

    @Test
    void promtoolFindsNothingToCriticize() {
        Promtool.Run run = Promtool.find().run(temp, Optional.of(exposition), "check", "metrics");

        assertThat(run.output()).as(exposition).isEmpty();
        assertThat(run.exitCode()).isZero();
    }

    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Set<String> PROMQL_WORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
            "group_left", "group_right", "inf", "nan");

    /** The metric names a PromQL expression selects: identifiers that are no function, keyword, label, string or range. */
    static Set<String> metricNames(String expr) {
        String bare = expr.replaceAll("\"(\\\\.|[^\"])*\"", "\"\"")
                .replaceAll("\\{[^}]*}", " ")
                .replaceAll("\\[[^\\]]*\\]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(bare);
        while (m.find()) {
            String word = m.group();
            boolean call = bare.substring(m.end()).stripLeading().startsWith("(");
            boolean number = m.start() > 0 && Character.isDigit(bare.charAt(m.start() - 1));
            if (!call && !number && !PROMQL_WORDS.contains(word)) names.add(word);
        }
        return names;
    }

    @Test
    void metricNamesAreReadFromExpressions() {
        assertThat(metricNames("histogram_quantile(0.99, sum by (le) (rate(vfio_dp_scan_duration_seconds_bucket{node=~\"$node\"}[5m])))"))
                .containsExactly("vfio_dp_scan_duration_seconds_bucket");
        assertThat(metricNames("time() - vfio_dp_last_successful_scan_timestamp_seconds > 600 or up == 0"))
                .containsExactly("up", "vfio_dp_last_successful_scan_timestamp_seconds");
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyAlertNamesOnlyExposedMetrics() throws Exception {
        Map<String, Object> rule = io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
                Files.readString(Checkout.path("deploy/monitoring/prometheusrule.yaml")), Map.class);
        Set<String> used = new TreeSet<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) ((Map<String, Object>) rule.get("spec")).get("groups")) {
            for (Map<String, Object> r : (List<Map<String, Object>>) group.get("rules")) used.addAll(metricNames((String) r.get("expr")));
        }

        assertThat(sampleNames(exposition)).containsAll(used);
        assertThat(used).hasSize(13);
    }

    /** Every PromQL query of the dashboard, with Grafana's variables as Prometheus would get them. */
    @SuppressWarnings("unchecked")
    private static List<String> dashboardQueries() throws Exception {
        Map<String, Object> dashboard = io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
                Files.readString(Checkout.path("deploy/monitoring/vfio-device-plugin-dashboard.json")), Map.class);
        List<String> queries = new java.util.ArrayList<>();
        for (Map<String, Object> panel : (List<Map<String, Object>>) dashboard.get("panels")) {
            for (Map<String, Object> target : (List<Map<String, Object>>) panel.get("targets")) {
                queries.add(((String) target.get("expr")).replace("$__rate_interval", "2m").replace("$node", ".*"));
            }
        }
        return queries;
    }

    @Test
    void everyDashboardQueryNamesOnlyExposedMetricsAndCoversWhatOperatorsAskFor() throws Exception {
        Set<String> used = new TreeSet<>();
        for (String q : dashboardQueries()) used.addAll(metricNames(q));

        assertThat(sampleNames(exposition)).containsAll(used);
        assertThat(used).contains("vfio_dp_devices", "vfio_dp_resource_registered", "vfio_dp_registrations_total", "vfio_dp_allocations_total",
                "vfio_dp_scan_duration_seconds_bucket", "vfio_dp_reconcile_duration_seconds_bucket", "vfio_dp_dra_devices", "vfio_dp_dra_registered",
                "vfio_dp_dra_slices_published", "vfio_dp_dra_prepared_claims", "vfio_dp_dra_prepare_errors_total", "vfio_dp_passthrough_possible",
                "vfio_dp_device_holder_info");
    }

    @Test
    void promtoolCompilesEveryDashboardQuery() throws Exception {
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        List<String> queries = dashboardQueries();
        for (int i = 0; i < queries.size(); i++) {
            rules.append("      - record: dashboard:query_").append(i).append("\n        expr: ")
                    .append(io.fabric8.kubernetes.client.utils.Serialization.asJson(queries.get(i))).append('\n');
        }
        Files.writeString(temp.resolve("dashboard-queries.yaml"), rules);

        Promtool.Run run = Promtool.find().run(temp, Optional.empty(), "check", "rules", "dashboard-queries.yaml");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.output()).contains("SUCCESS: " + queries.size() + " rules found");
    }
}
