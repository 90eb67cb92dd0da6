package io.vfiodp.hooks;

import io.vfiodp.libvirt.HostdevPlanner;
import io.vfiodp.libvirt.HostdevXml;
import io.vfiodp.libvirt.KubeVirtRelease;
import io.vfiodp.libvirt.LauncherEnv;
import io.vfiodp.libvirt.LauncherImage;
import io.vfiodp.libvirt.PlanOutcome;
import io.vfiodp.libvirt.VmiDevices;
import io.vfiodp.libvirt.XmlOutcome;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OnDefineDomain, independent of gRPC: the domain XML and VMI virt-launcher sends, plus the
 * device variables of this container's environment, give the domain to define. It runs on
 * every definition pass, so it must be (and is) idempotent: hostdevs already in the domain
 * are matched by source address or UUID and never added twice.
 *
 * <p>Where KubeVirt releases differ it follows the release given to it, else the one the VMI's
 * {@code status.launcherContainerImageVersion} names ({@link LauncherImage}), else the newest
 * release, with a warning. Warnings are logged once per VMI, not on every pass.
 */
public final class DomainDefinitionHook {

    private static final Logger LOG = LoggerFactory.getLogger(DomainDefinitionHook.class);

    private final LauncherEnv env;
    private final boolean companionsOption;
    private final Optional<KubeVirtRelease> release;
    private final HostdevPlanner planner = new HostdevPlanner();
    private final HostdevXml xml;
    // gRPC threads call in; each line is logged the first time only
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    /**
     * @param companionsOption attach companion functions unless the VMI's annotation says otherwise
     * @param release          the KubeVirt release to follow whatever the VMI says; empty: the VMI's
     */
    public DomainDefinitionHook(LauncherEnv env, boolean companionsOption, Optional<KubeVirtRelease> release, HostdevXml xml) {
        this.env = env;
        this.companionsOption = companionsOption;
        this.release = Objects.requireNonNull(release, "release");
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
        KubeVirtRelease kubevirt = release.isPresent() ? release.get() : vmi.map(this::releaseOf).orElse(KubeVirtRelease.newest());
        PlanOutcome plan = planner.plan(env, vmi, companionsOption, kubevirt);
        return switch (plan) {
            case PlanOutcome.Failed f -> new DefineOutcome.Failed(f.message());
            case PlanOutcome.Planned p -> {
                p.notes().forEach(n -> LOG.info("OnDefineDomain: {}", n));
                p.warnings().forEach(w -> once(w, () -> LOG.warn("OnDefineDomain: {}", w)));
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

    /** The release of the VMI's virt-launcher, else the newest release, with a warning saying why. */
    private KubeVirtRelease releaseOf(VmiDevices vmi) {
        return switch (LauncherImage.of(vmi.launcherImage())) {
            case LauncherImage.Recognised r -> {
                String line = vmi.describe() + " runs virt-launcher " + r.image() + ": following KubeVirt " + r.release().describe();
                once(line, () -> LOG.info("OnDefineDomain: {}", line));
                yield r.release();
            }
            case LauncherImage.Unrecognised u -> {
                KubeVirtRelease newest = KubeVirtRelease.newest();
                String line = vmi.describe() + ": " + u.why() + "; following KubeVirt " + newest.describe()
                        + ", the newest release, where releases differ (hook-sidecar --kubevirt-version chooses one)";
                once(line, () -> LOG.warn("OnDefineDomain: {}", line));
                yield newest;
            }
        };
    }

    private void once(String line, Runnable log) {
        if (logged.add(line)) log.run();
    }
}
