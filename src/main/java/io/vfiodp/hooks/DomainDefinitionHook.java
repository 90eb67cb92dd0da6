package io.vfiodp.hooks;

import io.vfiodp.libvirt.HostdevPlanner;
import io.vfiodp.libvirt.HostdevXml;
import io.vfiodp.libvirt.LauncherEnv;
import io.vfiodp.libvirt.PlanOutcome;
import io.vfiodp.libvirt.VmiDevices;
import io.vfiodp.libvirt.XmlOutcome;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OnDefineDomain, independent of gRPC: the domain XML and VMI virt-launcher sends, plus the
 * device variables of this container's environment, give the domain to define. It runs on
 * every definition pass, so it must be (and is) idempotent: hostdevs already in the domain
 * are matched by source address or UUID and never added twice.
 */
public final class DomainDefinitionHook {

    private static final Logger LOG = LoggerFactory.getLogger(DomainDefinitionHook.class);

    private final LauncherEnv env;
    private final boolean companionsOption;
    private final HostdevPlanner planner = new HostdevPlanner();
    private final HostdevXml xml;

    /**
     * @param companionsOption attach companion functions unless the VMI's annotation says otherwise
     */
    public DomainDefinitionHook(LauncherEnv env, boolean companionsOption, HostdevXml xml) {
        this.env = env;
        this.companionsOption = companionsOption;
        this.xml = xml;
    }

    public DefineOutcome onDefineDomain(byte[] domainXml, byte[] vmiJson) {
        DefineOutcome outcome = decide(domainXml, vmiJson);
        switch (outcome) {
            case DefineOutcome.Changed c -> LOG.info("OnDefineDomain: added {}, gave guest addresses to {}", c.added(), c.updated());
            case DefineOutcome.Unchanged u -> LOG.info("OnDefineDomain: domain returned unchanged: {}", u.reason());
            case DefineOutcome.Failed f -> LOG.error("OnDefineDomain failed: {}", f.message());
        }
        return outcome;
    }

    private DefineOutcome decide(byte[] domainXml, byte[] vmiJson) {
        if (!env.hasDeviceVariables()) {
            // KubeVirt puts a device plugin's variables only into the compute container, the
            // one that requests the resource; a hook sidecar container requests none.
            return new DefineOutcome.Unchanged(
                    "no PCI_RESOURCE_* or MDEV_PCI_RESOURCE_* variable in this container's environment, so there is nothing to derive");
        }
        Optional<VmiDevices> vmi;
        try {
            vmi = vmiJson.length == 0 ? Optional.empty() : Optional.of(VmiDevices.parse(new String(vmiJson, StandardCharsets.UTF_8)));
        } catch (IllegalArgumentException e) {
            return new DefineOutcome.Failed(e.getMessage());
        }
        PlanOutcome plan = planner.plan(env, vmi, companionsOption);
        return switch (plan) {
            case PlanOutcome.Failed f -> new DefineOutcome.Failed(f.message());
            case PlanOutcome.Planned p -> {
                p.notes().forEach(n -> LOG.info("OnDefineDomain: {}", n));
                yield switch (xml.merge(domainXml, p.hostdevs())) {
                    case XmlOutcome.Refused r -> new DefineOutcome.Failed(r.message());
                    case XmlOutcome.Written w when w.changed() ->
                            new DefineOutcome.Changed(w.xml().getBytes(StandardCharsets.UTF_8), w.added(), w.updated());
                    case XmlOutcome.Written w -> new DefineOutcome.Unchanged(
                            p.hostdevs().isEmpty() ? "the VMI asks for no device of ours" : "every hostdev is already in the domain");
                };
            }
        };
    }
}
