package io.vfiodp.policy;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.util.Optional;
import java.util.Set;

/**
 * Decides what the plugin serves: a pure function of a host snapshot, the permitted-devices
 * configuration (none = default mode) and the pci.ids names. Cheap enough to run on every
 * rescan: one pass over the snapshot, pci.ids look-ups only for the models exposed.
 *
 * <p>Default mode exposes NVIDIA GPUs (class 0x03) and NVSwitches (0x0680) on a VFIO driver,
 * every mdev of an NVIDIA parent and every SR-IOV vGPU VF carrying a vGPU, under
 * NVIDIA-plugin-compatible names. With a configuration exactly its
 * {@code externalResourceProvider: true} entries are exposed, any vendor, under their names.
 * In both modes the other non-bridge functions of an exposed device's IOMMU group are its
 * companions, never devices of their own, and boot VGA or host-driven functions stay with the host.
 */
public final class PolicyEngine {

    private PolicyEngine() {}

    /** Every vendor whose device names {@link #evaluate} may look up, on any host: {@link #vendorsNamed} is a subset. */
    public static final Set<Integer> VENDORS_EVER_NAMED = Set.of(PciFunction.VENDOR_NVIDIA);

    /**
     * The vendors whose device names {@link #evaluate} may look up on this host: only the default
     * naming reads pci.ids, and it names NVIDIA functions only.
     */
    public static Set<Integer> vendorsNamed(HostSnapshot snapshot) {
        return snapshot.functions().values().stream().anyMatch(f -> f.vendor() == PciFunction.VENDOR_NVIDIA)
                ? VENDORS_EVER_NAMED : Set.of();
    }

    public static PolicyResult evaluate(HostSnapshot snapshot, Optional<PermittedHostDevices> config, PciIds pciIds) {
        return new PolicyEvaluation(snapshot, config.map(PermittedSelectors::of), pciIds).run();
    }

    /** Drivers a device may be passed through from: vfio-pci and its vendor variants. */
    public static boolean isVfioDriver(String driver) {
        return driver.equals("vfio-pci") || driver.endsWith("_vfio_pci") || driver.endsWith("-vfio-pci");
    }

    /**
     * Why a PCI function cannot be passed through, if it cannot: the one rule both the policy
     * and {@code inventory --suggest-config} apply.
     */
    public static Optional<String> unusable(PciFunction f) {
        if (f.driver().isEmpty()) {
            return Optional.of("no driver bound; bind it to vfio-pci to pass it through");
        }
        String driver = f.driver().get();
        if (driver.equals("nvidia") || driver.equals("nouveau")) {
            return Optional.of("bound to " + driver + ": the host uses it (bind it to vfio-pci to pass it through)");
        }
        if (!isVfioDriver(driver)) {
            return Optional.of("bound to " + driver + ", not a VFIO driver (bind it to vfio-pci to pass it through)");
        }
        if (f.bootVga()) {
            return Optional.of("boot VGA: the host console uses it");
        }
        if (f.iommuGroup().isEmpty()) {
            return Optional.of("no IOMMU group (is the IOMMU enabled, e.g. intel_iommu=on?)");
        }
        return Optional.empty();
    }
}
