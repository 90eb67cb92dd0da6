package io.vfiodp.doctor;

import static io.vfiodp.doctor.Nodes.outcome;
import static io.vfiodp.doctor.Nodes.view;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.kube.kubevirt.CrRef;
import io.vfiodp.kube.kubevirt.KubeVirtCrReading;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KubeVirtCheckTest {

    private static final CrRef CR = new CrRef("kubevirt", "kubevirt");

    private static PermittedHostDevices pci(boolean external) {
        return new PermittedHostDevices(List.of(new PciHostDevice("10DE:1EB8", "nvidia.com/TU104GL_TESLA_T4", external)), List.of());
    }

    @Test
    void notAskedGivesNoLine() {
        assertThat(new KubeVirtCheck().run(view("doctor-ready"))).isEmpty();
    }

    @Test
    void noApiSaysItWasNotChecked() {
        assertThat(outcome(new KubeVirtCheck(), view("doctor-ready", new KubeVirtCrReading.NoApi()))).isEqualTo(new Outcome.Ok(
                "not checked: no Kubernetes API is configured here (in-cluster service, KUBECONFIG or ~/.kube/config)"));
    }

    @Test
    void aCrWithEntriesThisPluginServesIsOk() {
        assertThat(outcome(new KubeVirtCheck(), view("doctor-ready",
                new KubeVirtCrReading.Found(CR, Optional.of("Deployed"), Optional.of(pci(true)), List.of())))).isEqualTo(new Outcome.Ok(
                "KubeVirt CR kubevirt/kubevirt (Deployed): permittedHostDevices has 1 entries, 1 served by this plugin"));
    }

    @Test
    void aCrWhoseEntriesAreAllVirtHandlersWarnsThatThisPluginServesNothing() {
        assertThat(outcome(new KubeVirtCheck(), view("doctor-ready",
                new KubeVirtCrReading.Found(CR, Optional.of("Deployed"), Optional.of(pci(false)), List.of())))).isEqualTo(new Outcome.Warn(
                "KubeVirt CR kubevirt/kubevirt (Deployed): permittedHostDevices has 1 entries, none with externalResourceProvider: true, so this"
                        + " plugin serves nothing (KubeVirt's virt-handler serves them)",
                Fix.advice("set externalResourceProvider: true on the entries this plugin should serve")));
    }

    @Test
    void aCrWithoutPermittedDevicesLetsVmsAskForAnyName() {
        assertThat(outcome(new KubeVirtCheck(), view("doctor-ready",
                new KubeVirtCrReading.Found(CR, Optional.of("Deployed"), Optional.empty(), List.of())))).isEqualTo(new Outcome.Ok(
                "KubeVirt CR kubevirt/kubevirt (Deployed): no permittedHostDevices, so KubeVirt lets VMs ask for any device name"));
    }

    @Test
    void theCrsPermittedDevicesWinOverTheDefaultPolicy() {
        NodeView v = view("doctor-ready", new KubeVirtCrReading.Found(CR, Optional.of("Deployed"), Optional.of(pci(true)), List.of()));

        assertThat(v.permittedFrom()).isEqualTo("the KubeVirt CR kubevirt/kubevirt");
        assertThat(v.policy().desiredState().resources().keySet()).extracting(Object::toString).containsExactly("nvidia.com/TU104GL_TESLA_T4");
    }

    @Test
    void aCrNotDeployedYetWarns() {
        assertThat(outcome(new KubeVirtCheck(), view("doctor-ready",
                new KubeVirtCrReading.Found(CR, Optional.of("Deploying"), Optional.empty(), List.of())))).isEqualTo(new Outcome.Warn(
                "KubeVirt CR kubevirt/kubevirt (Deploying): KubeVirt is not deployed yet", Fix.advice("wait for phase Deployed, or see virt-operator's log")));
    }

    @Test
    void kubeVirtNotInstalledWarns() {
        assertThat(outcome(new KubeVirtCheck(), view("doctor-ready", new KubeVirtCrReading.NotInstalled()))).isEqualTo(new Outcome.Warn(
                "the API serves no kubevirts.kubevirt.io: KubeVirt is not installed", Fix.advice("install KubeVirt; until then no VM asks for these devices")));
    }

    @Test
    void anUnreadableCrWarnsWithTheReason() {
        assertThat(outcome(new KubeVirtCheck(), view("doctor-ready", new KubeVirtCrReading.Unreadable("forbidden (HTTP 403): grant list on"
                + " kubevirts.kubevirt.io")))).isEqualTo(new Outcome.Warn(
                "cannot read the KubeVirt CR: forbidden (HTTP 403): grant list on kubevirts.kubevirt.io",
                Fix.advice("grant list on kubevirts.kubevirt.io (deploy/base/rbac.yaml has it) and check the API is reachable")));
    }
}
