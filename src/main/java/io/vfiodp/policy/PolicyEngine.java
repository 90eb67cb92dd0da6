package io.vfiodp.policy;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.IommuGroup;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.PciIds;
import io.vfiodp.host.VgpuVf;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

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

    /**
     * The vendors whose device names {@link #evaluate} may look up on this host: only the default
     * naming reads pci.ids, and it names NVIDIA functions only.
     */
    public static Set<Integer> vendorsNamed(HostSnapshot snapshot) {
        return snapshot.functions().values().stream().anyMatch(f -> f.vendor() == PciFunction.VENDOR_NVIDIA)
                ? Set.of(PciFunction.VENDOR_NVIDIA) : Set.of();
    }

    public static PolicyResult evaluate(HostSnapshot snapshot, Optional<PermittedHostDevices> config, PciIds pciIds) {
        return new Evaluation(snapshot, config.map(PermittedSelectors::of), pciIds).run();
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

    /** One run: working state lives here, never between runs. */
    private static final class Evaluation {
        private final HostSnapshot snapshot;
        private final Optional<PermittedSelectors> selectors;
        private final PciIds pciIds;

        private final SortedMap<PciAddress, Decision> functionDecisions = new TreeMap<>();
        private final SortedMap<String, Decision> mdevDecisions = new TreeMap<>();
        /** Device ID → how it wants to be named and exposed. */
        private final Map<String, Candidate> candidates = new TreeMap<>();

        Evaluation(HostSnapshot snapshot, Optional<PermittedSelectors> selectors, PciIds pciIds) {
            this.snapshot = snapshot;
            this.selectors = selectors;
            this.pciIds = pciIds;
        }

        /** The name a candidate gets: fixed by a configuration entry, or generated. */
        private sealed interface Naming {}

        private record Configured(ResourceName name) implements Naming {}

        private record Generated(DefaultNameAllocator.Request request) implements Naming {}

        private record Candidate(String id, DeviceKind kind, PciAddress pciAddress, int iommuGroup, Naming naming,
                List<String> notes) {}

        PolicyResult run() {
            for (PciFunction f : snapshot.functions().values()) decideFunction(f);
            for (MdevInstance m : snapshot.mdevs().values()) decideMdev(m);
            offerSharedGroupsAsOneDevice();

            Map<String, DefaultNameAllocator.Allocation> generated = DefaultNameAllocator.allocate(candidates.values().stream()
                    .map(Candidate::naming)
                    .filter(Generated.class::isInstance)
                    .map(n -> ((Generated) n).request())
                    .toList());

            Map<ResourceName, List<ExposedDevice>> byResource = new TreeMap<>();
            Map<ResourceName, DeviceKind> kinds = new TreeMap<>();
            for (Candidate c : candidates.values()) {
                List<String> notes = new ArrayList<>();
                ResourceName name = switch (c.naming()) {
                    case Configured configured -> configured.name();
                    case Generated g -> {
                        DefaultNameAllocator.Allocation a = generated.get(g.request().identity());
                        notes.addAll(a.notes());
                        yield a.name();
                    }
                };
                notes.addAll(c.notes());
                List<PciAddress> companions = List.of();
                if (c.kind() == DeviceKind.PCI) {
                    companions = companions(c, notes);
                    for (PciAddress companion : companions) {
                        Decision earlier = functionDecisions.get(companion);
                        boolean known = snapshot.functions().containsKey(companion);
                        if (known && (earlier == null || earlier instanceof Decision.Skipped)) {
                            functionDecisions.put(companion, new Decision.Companion(c.pciAddress()));
                        }
                    }
                }
                Optional<PciFunction> function = snapshot.function(c.pciAddress());
                ExposedDevice device = new ExposedDevice(c.id(), c.kind(), c.pciAddress(), c.iommuGroup(),
                        function.map(PciFunction::numaNode).orElse(-1),
                        companions,
                        c.kind() == DeviceKind.PCI ? function.flatMap(PciFunction::vfioCdev) : Optional.empty(),
                        function.map(PciFunction::upstreamBridges).orElse(List.of()),
                        health(c));
                byResource.computeIfAbsent(name, k -> new ArrayList<>()).add(device);
                kinds.put(name, c.kind());
                Decision.Exposed decision = new Decision.Exposed(name, notes);
                if (c.kind() == DeviceKind.MDEV) {
                    mdevDecisions.put(c.id(), decision);
                } else {
                    functionDecisions.put(c.pciAddress(), decision);
                }
            }

            List<DesiredResource> resources = new ArrayList<>();
            byResource.forEach((name, devices) -> resources.add(new DesiredResource(name, kinds.get(name),
                    devices.stream().sorted(Comparator.comparing(ExposedDevice::id)).toList())));
            List<PolicyProblem> problems = selectors.map(PermittedSelectors::problems).orElse(List.of());
            return new PolicyResult(DesiredState.of(resources), functionDecisions, mdevDecisions, problems);
        }

        /**
         * Of PCI candidates sharing an IOMMU group, only the lowest-addressed stays a device; the
         * others become its companions (see {@link SharedGroups}), before any name is generated
         * for them.
         */
        private void offerSharedGroupsAsOneDevice() {
            SharedGroups.Offer offer = SharedGroups.of(candidates.values().stream()
                    .filter(c -> c.kind() == DeviceKind.PCI)
                    .map(c -> new SharedGroups.Exposable(c.pciAddress(), c.iommuGroup()))
                    .toList());
            offer.leaders().forEach((group, leader) -> {
                Candidate c = candidates.get(leader.toString());
                List<String> notes = new ArrayList<>(c.notes());
                notes.add(SharedGroups.leaderNote(group, offer.mates().get(group)));
                candidates.put(c.id(), new Candidate(c.id(), c.kind(), c.pciAddress(), c.iommuGroup(), c.naming(), notes));
                for (PciAddress mate : offer.mates().get(group)) {
                    candidates.remove(mate.toString());
                    functionDecisions.put(mate, new Decision.Companion(leader, List.of(SharedGroups.mateNote(group, leader))));
                }
            });
        }

        private Health health(Candidate c) {
            int group = c.iommuGroup();
            if (!snapshot.devNodes().hasGroupNode(group)) {
                return Health.unhealthy("IOMMU group " + group + ": /dev/vfio/" + group + " missing");
            }
            // An mdev's group holds the mdev alone; its parent's PCI group is not handed out.
            if (c.kind() == DeviceKind.MDEV) return Health.HEALTHY;
            return GroupViability.whyNotViable(snapshot, group, c.pciAddress()).map(Health::unhealthy).orElse(Health.HEALTHY);
        }

        /**
         * The other members of the device's IOMMU group, bridges left out: VFIO hands the whole
         * group to one VM, so they go along (functions of the same card, and the functions a
         * shared group's device stands for).
         */
        private List<PciAddress> companions(Candidate c, List<String> notes) {
            Optional<IommuGroup> group = snapshot.group(c.iommuGroup());
            if (group.isEmpty()) return List.of();
            List<PciAddress> out = new ArrayList<>();
            for (PciAddress member : group.get().members()) {
                if (member.equals(c.pciAddress())) continue;
                Optional<PciFunction> f = snapshot.function(member);
                if (f.isPresent() && f.get().baseClass() == 0x06) continue;
                out.add(member);
                Optional<String> driver = f.flatMap(PciFunction::driver);
                if (f.isPresent() && !GroupViability.tolerated(f.get(), snapshot.vgpuVfs().get(member))) {
                    notes.add("companion " + member + " is bound to " + driver.get() + ", not a VFIO driver: VFIO refuses"
                            + " IOMMU group " + c.iommuGroup() + " (not viable) until it is bound to vfio-pci");
                }
            }
            return out;
        }

        private void decideFunction(PciFunction f) {
            VgpuVf vf = snapshot.vgpuVfs().get(f.address());
            if (vf != null) {
                decideVgpuVf(f, vf);
                return;
            }
            boolean display = f.baseClass() == 0x03;
            boolean nvswitch = f.vendor() == PciFunction.VENDOR_NVIDIA && (f.classCode() >> 8) == 0x0680;
            boolean vfio = f.driver().map(PolicyEngine::isVfioDriver).orElse(false);
            if (selectors.isPresent()) {
                Optional<PermittedSelectors.Rule> rule = selectors.get().forPci(f.vendorDevice());
                if (!display && !nvswitch && !vfio && rule.isEmpty()) return;
                if (rule.isEmpty()) {
                    skip(f, "no pciHostDevices entry selects " + f.vendorDevice());
                    return;
                }
                if (!rule.get().external()) {
                    skip(f, servedByKubeVirt(rule.get()));
                    return;
                }
                Optional<String> unusable = unusable(f);
                if (unusable.isPresent()) {
                    skip(f, unusable.get());
                    return;
                }
                expose(f, new Configured(rule.get().resourceName()), List.of());
                return;
            }
            if (!display && !nvswitch && !vfio) return;
            if (f.vendor() != PciFunction.VENDOR_NVIDIA) {
                skip(f, "vendor " + String.format("%04x", f.vendor()) + vendorName(f.vendor())
                        + " is not NVIDIA: without --config only NVIDIA GPUs and NVSwitches are exposed"
                        + " (permit it with a pciHostDevices entry)");
                return;
            }
            if (!display && !nvswitch) {
                skip(f, String.format("class 0x%06x is neither a display controller nor an NVSwitch", f.classCode()));
                return;
            }
            Optional<String> unusable = unusable(f);
            if (unusable.isPresent()) {
                skip(f, unusable.get());
                return;
            }
            Optional<String> model = pciIds.deviceName(f.vendor(), f.device());
            String raw = model.map(DefaultNames::fromModelName).orElse(DefaultNames.fromDeviceId(f.device()));
            List<String> notes = model.isPresent()
                    ? List.of()
                    : List.of("device id " + f.vendorDevice() + " is not in " + pciIds.source() + "; named by its id");
            String origin = f.vendorDevice() + model.map(m -> " '" + m + "'").orElse("");
            expose(f, new Generated(new DefaultNameAllocator.Request("pci:" + f.vendorDevice(), raw,
                    DefaultNames.fromDeviceId(f.device()), DefaultNames.fromDeviceId(f.device()), origin)), notes);
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
                        + String.format("%04x", parent.get().vendor()) + vendorName(parent.get().vendor())
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
}
