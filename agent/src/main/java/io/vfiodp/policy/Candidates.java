package io.vfiodp.policy;

import io.vfiodp.host.Hex;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.VgpuVf;
import io.vfiodp.host.pciids.PciIds;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The first half of a policy run: every PCI function and mdev of the snapshot, decided one by one.
 * A device the policy would expose becomes a {@link Candidate} (named later, all at once, so that
 * colliding default names can be told apart); the others get their {@link Decision} here.
 */
final class Candidates {

    /** The name a candidate gets: fixed by a configuration entry, or generated. */
    sealed interface Naming {}

    record Configured(ResourceName name) implements Naming {}

    record Generated(DefaultNameAllocator.Request request) implements Naming {}

    record Candidate(String id, DeviceKind kind, PciAddress pciAddress, int iommuGroup, Naming naming, List<String> notes) {}

    private final HostSnapshot snapshot;
    private final Optional<PermittedSelectors> selectors;
    private final PciIds pciIds;
    final SortedMap<PciAddress, Decision> functionDecisions = new TreeMap<>();
    final SortedMap<String, Decision> mdevDecisions = new TreeMap<>();
    /** Device ID → how it wants to be named and exposed. */
    final Map<String, Candidate> candidates = new TreeMap<>();
    /**
     * pci.ids model name → its name part: a node's GPUs are mostly one or two models, and the
     * regular expression of {@link DefaultNames#fromModelName} runs interpreted in the first pass,
     * once per GPU without this (docs/benchmarks.md, "Choices in the code").
     */
    private final Map<String, String> modelNames = new HashMap<>();

    Candidates(HostSnapshot snapshot, Optional<PermittedSelectors> selectors, PciIds pciIds) {
        this.snapshot = snapshot;
        this.selectors = selectors;
        this.pciIds = pciIds;
    }

    /** Decides every function and mdev of the snapshot. */
    Candidates collect() {
        for (PciFunction f : snapshot.functions().values()) decideFunction(f);
        for (MdevInstance m : snapshot.mdevs().values()) decideMdev(m);
        return this;
    }

    private void decideFunction(PciFunction f) {
        VgpuVf vf = snapshot.vgpuVfs().get(f.address());
        if (vf != null) {
            decideVgpuVf(f, vf);
            return;
        }
        boolean display = f.baseClass() == 0x03;
        boolean nvswitch = f.isNvSwitch();
        boolean vfio = f.driver().map(PolicyEngine::isVfioDriver).orElse(false);
        if (selectors.isPresent()) {
            Optional<PermittedSelectors.Rule> rule = selectors.get().forPci(f.vendorDevice());
            if (!display && !nvswitch && !vfio && rule.isEmpty()) return;
            if (rule.isEmpty()) {
                skip(f, "no pciHostDevices entry selects " + f.vendorDevice());
                return;
            }
            if (!rule.get().external()) {
                skip(f, virtHandlersSelector(rule.get(), f.driver()));
                return;
            }
            Optional<String> unusable = PolicyEngine.unusable(f);
            if (unusable.isPresent()) {
                skip(f, unusable.get());
                return;
            }
            expose(f, new Configured(rule.get().resourceName()), List.of());
            return;
        }
        if (!display && !nvswitch && !vfio) return;
        if (f.vendor() != PciFunction.VENDOR_NVIDIA) {
            skip(f, "vendor " + Hex.of(f.vendor(), 4) + vendorName(f.vendor())
                    + " is not NVIDIA: without --config only NVIDIA GPUs and NVSwitches are exposed"
                    + " (permit it with a pciHostDevices entry)");
            return;
        }
        if (!display && !nvswitch) {
            skip(f, "class 0x" + Hex.of(f.classCode(), 6) + " is neither a display controller nor an NVSwitch");
            return;
        }
        Optional<String> unusable = PolicyEngine.unusable(f);
        if (unusable.isPresent()) {
            skip(f, unusable.get());
            return;
        }
        Optional<String> model = pciIds.deviceName(f.vendor(), f.device());
        String vendorDevice = f.vendorDevice();
        String byId = DefaultNames.fromDeviceId(f.device());
        String raw = model.map(m -> modelNames.computeIfAbsent(m, DefaultNames::fromModelName)).orElse(byId);
        List<String> notes = model.isPresent()
                ? List.of()
                : List.of("device id " + vendorDevice + " is not in " + pciIds.source() + "; named by its id");
        String origin = vendorDevice + model.map(m -> " '" + m + "'").orElse("");
        expose(f, new Generated(new DefaultNameAllocator.Request("pci:" + vendorDevice, raw, byId, byId, origin)), notes);
    }

    private void decideVgpuVf(PciFunction f, VgpuVf vf) {
        if (vf.currentTypeId() == 0) {
            skip(f, "SR-IOV vGPU VF without a vGPU (nvidia/current_vgpu_type is 0)");
            return;
        }
        String type = vf.currentTypeId() + vf.typeName().map(n -> " '" + n + "'").orElse("");
        if (f.iommuGroup().isEmpty()) {
            skip(f, "SR-IOV vGPU VF (type " + type + ") has no IOMMU group");
            return;
        }
        if (selectors.isPresent()) {
            Optional<PermittedSelectors.Rule> rule = selectors.get().forPci(f.vendorDevice());
            if (rule.isEmpty()) {
                skip(f, "no pciHostDevices entry selects " + f.vendorDevice() + " (SR-IOV vGPU VF, type " + type + ")");
            } else if (!rule.get().external()) {
                // an SR-IOV vGPU VF on nvidia with a vGPU type: shouldPermitNvidia (nvidia.go)
                skip(f, servedByKubeVirt(rule.get()));
            } else {
                expose(f, new Configured(rule.get().resourceName()), List.of());
            }
            return;
        }
        if (vf.typeName().isPresent()) {
            String name = vf.typeName().get();
            expose(f, new Generated(new DefaultNameAllocator.Request("vgpu:" + name, DefaultNames.fromTypeName(name),
                    Integer.toString(vf.currentTypeId()), "VGPU_TYPE_" + vf.currentTypeId(),
                    "vGPU type " + vf.currentTypeId() + " '" + name + "'")), List.of());
        } else {
            String part = "VGPU_TYPE_" + vf.currentTypeId();
            expose(f, new Generated(new DefaultNameAllocator.Request("vgpu-id:" + vf.currentTypeId(), part,
                    Integer.toString(vf.currentTypeId()), part, "vGPU type " + vf.currentTypeId())),
                    List.of("vGPU type " + vf.currentTypeId() + " has no name in any creatable_vgpu_types on this host;"
                            + " named by its id"));
        }
    }

    private void decideMdev(MdevInstance m) {
        Optional<PciFunction> parent = snapshot.function(m.parent());
        if (m.iommuGroup() < 0) {
            mdevDecisions.put(m.uuid(), new Decision.Skipped("no IOMMU group"));
            return;
        }
        if (selectors.isPresent()) {
            Optional<PermittedSelectors.Rule> rule = selectors.get().forMdevType(m.typeName());
            if (rule.isEmpty()) {
                mdevDecisions.put(m.uuid(), new Decision.Skipped("no mediatedDevices entry selects type '"
                        + PermittedSelectors.mdevSelectorForm(m.typeName()) + "'"));
            } else if (!rule.get().external()) {
                mdevDecisions.put(m.uuid(), new Decision.Skipped(servedByKubeVirt(rule.get())));
            } else {
                candidates.put(m.uuid(), new Candidate(m.uuid(), DeviceKind.MDEV, m.parent(), m.iommuGroup(),
                        new Configured(rule.get().resourceName()), List.of()));
            }
            return;
        }
        if (parent.isEmpty()) {
            mdevDecisions.put(m.uuid(), new Decision.Skipped("parent " + m.parent() + " is missing from the scan"));
            return;
        }
        if (parent.get().vendor() != PciFunction.VENDOR_NVIDIA) {
            mdevDecisions.put(m.uuid(), new Decision.Skipped("parent " + m.parent() + " (vendor "
                    + Hex.of(parent.get().vendor(), 4) + vendorName(parent.get().vendor())
                    + ") is not NVIDIA: without --config only NVIDIA vGPUs are exposed"
                    + " (permit the type with a mediatedDevices entry)"));
            return;
        }
        candidates.put(m.uuid(), new Candidate(m.uuid(), DeviceKind.MDEV, m.parent(), m.iommuGroup(),
                new Generated(new DefaultNameAllocator.Request("mdev:" + m.typeName(), DefaultNames.fromTypeName(m.typeName()),
                        m.typeId(), m.typeId(), "mdev type " + m.typeId() + " '" + m.typeName() + "'")),
                List.of()));
    }

    private static String servedByKubeVirt(PermittedSelectors.Rule rule) {
        return rule.describe() + " has no externalResourceProvider: true, so KubeVirt's virt-handler serves it";
    }

    /**
     * Why a PCI function a non-external selector names is not ours: virt-handler serves it, but
     * only on {@code vfio-pci} ({@code discoverPermittedHostPCIDevices},
     * {@code pkg/virt-handler/device-manager/pci_device.go}: {@code driver != "vfio-pci"} is
     * skipped unless it is an SR-IOV vGPU VF on nvidia, and a function without a driver is skipped
     * too). virt-handler looks at drivers when it starts and when the KubeVirt configuration changes.
     */
    private static String virtHandlersSelector(PermittedSelectors.Rule rule, Optional<String> driver) {
        if (driver.isPresent() && driver.get().equals("vfio-pci")) return servedByKubeVirt(rule);
        String holder = driver.map(d -> PolicyEngine.isVfioDriver(d)
                        ? "it is on " + d + ", and virt-handler takes only vfio-pci"
                        : "the host driver " + d + " holds it")
                .orElse("no driver holds it, and virt-handler takes only vfio-pci");
        return rule.describe() + " has no externalResourceProvider: true, so it is KubeVirt's virt-handler's to serve, but " + holder
                + ": no one serves it; virt-handler would serve it as " + rule.resourceName() + " once it is on vfio-pci";
    }

    private String vendorName(int vendor) {
        return pciIds.vendorName(vendor).map(n -> " (" + n + ")").orElse("");
    }

    private void skip(PciFunction f, String reason) {
        functionDecisions.put(f.address(), new Decision.Skipped(reason));
    }

    private void expose(PciFunction f, Naming naming, List<String> notes) {
        String id = f.address().toString();
        candidates.put(id, new Candidate(id, DeviceKind.PCI, f.address(), f.iommuGroup().orElseThrow(), naming, notes));
    }
}
