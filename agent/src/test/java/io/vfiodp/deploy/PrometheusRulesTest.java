package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PrometheusRule of deploy/monitoring as kubectl renders it, checked by Prometheus's own
 * {@code promtool}: the rule file parses and its expressions compile ({@code check rules}), and
 * the unit tests of src/test/resources/monitoring/alerts-test.yaml pass ({@code test rules}), which
 * give every alert series that fire it, with its exact labels and rendered annotations, and series
 * that do not.
 */
class PrometheusRulesTest {

    private static final Path UNIT_TESTS = Path.of("src/test/resources/monitoring/alerts-test.yaml");

    @TempDir static Path dir;
    private static Promtool promtool;

    @BeforeAll
    static void writeTheRenderedRuleFile() throws IOException {
        promtool = Promtool.find();
        Kubectl kubectl = MonitoringComponent.kubectls().getFirst();
        Files.writeString(dir.resolve("rules.yaml"), Serialization.asYaml(MonitoringComponent.ruleFile(kubectl.objects("monitoring"))));
        Files.copy(UNIT_TESTS, dir.resolve("alerts-test.yaml"));
    }

    @Test
    void promtoolChecksTheRules() {
        Promtool.Run run = promtool.run(dir, Optional.empty(), "check", "rules", "rules.yaml");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.output()).contains("SUCCESS: 13 rules found");
    }

    @Test
    void promtoolRunsTheAlertUnitTests() {
        Promtool.Run run = promtool.run(dir, Optional.empty(), "test", "rules", "alerts-test.yaml");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.output()).contains("SUCCESS");
    }

    @Test
    void promtoolFailsAUnitTestThatExpectsAnAlertThatDoesNotFire() throws IOException {
        // the unit tests can fail: the same series, one minute before VfioDeviceUnhealthy may fire
        String early = Files.readString(UNIT_TESTS).replaceFirst("eval_time: 11m", "eval_time: 9m");
        Files.writeString(dir.resolve("early-test.yaml"), early);

        Promtool.Run run = promtool.run(dir, Optional.empty(), "test", "rules", "early-test.yaml");

        assertThat(run.exitCode()).as(run.toString()).isNotZero();
        assertThat(run.output()).contains("alertname: VfioDeviceUnhealthy, time: 9m");
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyAlertIsTestedFiringAndNotFiring() throws IOException {
        Map<String, Object> rules = Serialization.unmarshal(Files.readString(dir.resolve("rules.yaml")), Map.class);
        Set<String> alerts = new TreeSet<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) rules.get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) alerts.add((String) rule.get("alert"));
        }
        Map<String, Object> unitTests = Serialization.unmarshal(Files.readString(UNIT_TESTS), Map.class);
        Set<String> fired = new HashSet<>();
        Set<String> quiet = new HashSet<>();
        for (Map<String, Object> test : (List<Map<String, Object>>) unitTests.get("tests")) {
            for (Map<String, Object> check : (List<Map<String, Object>>) test.get("alert_rule_test")) {
                String alert = (String) check.get("alertname");
                if (((List<?>) check.get("exp_alerts")).isEmpty()) quiet.add(alert);
                else fired.add(alert);
            }
        }

        assertThat(alerts).hasSize(13);
        assertThat(fired).as("alerts with series that fire them").containsExactlyInAnyOrderElementsOf(alerts);
        assertThat(quiet).as("alerts with series that do not fire them").containsExactlyInAnyOrderElementsOf(alerts);
    }
}
