package io.vfiodp.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.PolicyProblem;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ConfigProblemReporterTest {

    private static PciIds pciIds;

    @BeforeAll
    static void loadPciIds() throws Exception {
        pciIds = PciIds.bundled();
    }

    static List<PolicyProblem> problemsOf(PermittedHostDevices config) {
        return PolicyEngine.evaluate(HostSnapshot.EMPTY, Optional.of(config), pciIds).problems();
    }

    private final MockKubeApi api = MockKubeApi.start();
    private final NodeEventRecorder events = new NodeEventRecorder(api.client(), "gpu-node-1", Clock.systemUTC(), 64, Duration.ofMinutes(30));
    private final ConfigProblemReporter reporter = new ConfigProblemReporter(Optional.of(events));

    @AfterEach
    void tearDown() {
        events.close();
        api.close();
    }

    @Test
    void eachProblemBecomesAWarningEventOnTheNodeNamingEntryAndFix() throws Exception {
        events.start();
        List<PolicyProblem> problems = problemsOf(new PermittedHostDevices(List.of(
                new PciHostDevice("10DE:1EB8", "nvidia.com/TU104GL_TESLA_T4", true),
                new PciHostDevice("10DE:26B9", "L40S", true)), List.of()));

        reporter.report("KubeVirt CR kubevirt/kubevirt", problems);

        List<Event> posted = api.awaitEvents(1);
        assertThat(posted).hasSize(1);
        Event e = posted.get(0);
        assertThat(e.getReason()).isEqualTo("InvalidPermittedHostDevice");
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getInvolvedObject().getKind()).isEqualTo("Node");
        assertThat(e.getInvolvedObject().getName()).isEqualTo("gpu-node-1");
        assertThat(e.getMessage()).isEqualTo("KubeVirt CR kubevirt/kubevirt: pciHostDevices[1] (pciVendorSelector '10DE:26B9',"
                + " resourceName 'L40S') skipped: resource name 'L40S' has no domain prefix: write it as <domain>/<name>, e.g. nvidia.com/L40S");
    }

    @Test
    void duplicateSelectorIsAnOverriddenEvent() throws Exception {
        events.start();

        reporter.report("--config /etc/vfio-dp/config.yaml", problemsOf(new PermittedHostDevices(List.of(
                new PciHostDevice("10DE:1EB8", "nvidia.com/OLD", true),
                new PciHostDevice("10de:1eb8", "nvidia.com/NEW", true)), List.of())));

        Event e = api.awaitEvents(1).get(0);
        assertThat(e.getReason()).isEqualTo("OverriddenPermittedHostDevice");
        assertThat(e.getMessage()).startsWith("--config /etc/vfio-dp/config.yaml: pciHostDevices[1] repeats the selector '10de:1eb8'");
    }

    /** The case: one GPU named by an entry virt-handler serves and by one we would serve. */
    static final PermittedHostDevices TWO_PROVIDERS = new PermittedHostDevices(List.of(
            new PciHostDevice("10DE:1EB8", "nvidia.com/TU104GL_TESLA_T4", false),
            new PciHostDevice("10DE:1EB8", "nvidia.com/T4_PASSTHROUGH", true)), List.of());

    @Test
    void aSelectorKubeVirtServesNamedByAnExternalEntryIsAnInvalidEntryEventNamingBothEntries() throws Exception {
        events.start();

        reporter.report("KubeVirt CR kubevirt/kubevirt", problemsOf(TWO_PROVIDERS));

        Event e = api.awaitEvents(1).get(0);
        assertThat(e.getReason()).isEqualTo("InvalidPermittedHostDevice");
        assertThat(e.getMessage()).isEqualTo("KubeVirt CR kubevirt/kubevirt: pciHostDevices[1] (10de:1eb8 →"
                + " nvidia.com/T4_PASSTHROUGH) skipped: pciHostDevices[0] (10de:1eb8 → nvidia.com/TU104GL_TESLA_T4) names the same"
                + " selector without externalResourceProvider: true, so KubeVirt's virt-handler serves those devices; serving them"
                + " too would make one device allocatable under two names (remove one of the two entries)");
    }

    @Test
    void aLastingProblemIsLoggedOnceAndANewOneAgain() {
        List<PolicyProblem> first = problemsOf(new PermittedHostDevices(List.of(new PciHostDevice("10DE:26B9", "L40S", true)), List.of()));
        List<PolicyProblem> second = problemsOf(new PermittedHostDevices(List.of(new PciHostDevice("10DE-26B9", "nvidia.com/L40S", true)), List.of()));
        String log = capturingStderr(() -> {
            reporter.report("KubeVirt CR kubevirt/kubevirt", first);
            reporter.report("KubeVirt CR kubevirt/kubevirt", first);
            reporter.report("KubeVirt CR kubevirt/kubevirt", first);
            reporter.report("KubeVirt CR kubevirt/kubevirt", second);
        });

        assertThat(log.lines().filter(l -> l.contains("pciHostDevices[0] (pciVendorSelector '10DE:26B9'"))).hasSize(1);
        assertThat(log.lines().filter(l -> l.contains("pciHostDevices[0] (pciVendorSelector '10DE-26B9'"))).hasSize(1);
    }

    @Test
    void withoutANodeNameOnlyTheLogReports() {
        ConfigProblemReporter noEvents = new ConfigProblemReporter(Optional.empty());
        List<PolicyProblem> problems = problemsOf(TWO_PROVIDERS);

        String log = capturingStderr(() -> noEvents.report("KubeVirt CR kubevirt/kubevirt", problems));

        assertThat(log).contains("KubeVirt CR kubevirt/kubevirt: " + problems.get(0).message());
        assertThat(api.nodeEvents()).isEmpty();
    }

    private static String capturingStderr(Runnable r) {
        PrintStream original = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setErr(original);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }
}
