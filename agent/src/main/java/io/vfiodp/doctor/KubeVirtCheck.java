package io.vfiodp.doctor;

import io.vfiodp.kube.kubevirt.CrRef;
import io.vfiodp.kube.kubevirt.KubeVirtCrReading;
import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code kubevirt}: the KubeVirt CR, when a Kubernetes API is reachable. With
 * {@code permittedHostDevices} set, KubeVirt starts only VMs whose device names an entry lists,
 * and this plugin serves exactly the entries with {@code externalResourceProvider: true}.
 */
final class KubeVirtCheck implements Check {

    static final String ID = "kubevirt";

    @Override
    public List<Finding> run(NodeView node) {
        return node.kubevirt().map(r -> List.of(Finding.of(ID, outcome(r)))).orElse(List.of());
    }

    private static Outcome outcome(KubeVirtCrReading reading) {
        return switch (reading) {
            case KubeVirtCrReading.NoApi n -> new Outcome.Ok("not checked: no Kubernetes API is configured here (in-cluster service,"
                    + " KUBECONFIG or ~/.kube/config)");
            case KubeVirtCrReading.NotInstalled n -> new Outcome.Warn("the API serves no kubevirts.kubevirt.io: KubeVirt is not installed",
                    Fix.advice("install KubeVirt; until then no VM asks for these devices"));
            case KubeVirtCrReading.NoCr n -> new Outcome.Warn("no KubeVirt CR: KubeVirt's operator is installed but KubeVirt is not deployed",
                    Fix.advice("create the KubeVirt CR (KubeVirt's install manifests include one)"));
            case KubeVirtCrReading.Unreadable u -> new Outcome.Warn("cannot read the KubeVirt CR: " + u.reason(),
                    Fix.advice("grant list on kubevirts.kubevirt.io (deploy/base/rbac.yaml has it) and check the API is reachable"));
            case KubeVirtCrReading.Found f -> found(f);
        };
    }

    private static Outcome found(KubeVirtCrReading.Found f) {
        String cr = "KubeVirt CR " + f.source() + f.phase().map(p -> " (" + p + ")").orElse("")
                + (f.ignored().isEmpty() ? "" : ", ignoring " + String.join(", ", f.ignored().stream().map(CrRef::toString).toList()));
        if (f.phase().isPresent() && !f.phase().get().equals("Deployed")) {
            return new Outcome.Warn(cr + ": KubeVirt is not deployed yet", Fix.advice("wait for phase Deployed, or see virt-operator's log"));
        }
        if (f.permittedHostDevices().isEmpty()) {
            return new Outcome.Ok(cr + ": no permittedHostDevices, so KubeVirt lets VMs ask for any device name");
        }
        PermittedHostDevices p = f.permittedHostDevices().get();
        long entries = p.pciHostDevices().size() + p.mediatedDevices().size();
        long ours = Stream.concat(p.pciHostDevices().stream().map(PciHostDevice::externalResourceProvider),
                p.mediatedDevices().stream().map(MediatedHostDevice::externalResourceProvider)).filter(b -> b).count();
        if (ours == 0) {
            return new Outcome.Warn(cr + ": permittedHostDevices has " + entries + " entries, none with externalResourceProvider: true, so this"
                    + " plugin serves nothing (KubeVirt's virt-handler serves them)",
                    Fix.advice("set externalResourceProvider: true on the entries this plugin should serve"));
        }
        return new Outcome.Ok(cr + ": permittedHostDevices has " + entries + " entries, " + ours + " served by this plugin");
    }
}
