package io.vfiodp.policy;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.IommuGroup;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.Candidates.Candidate;
import io.vfiodp.policy.Candidates.Configured;
import io.vfiodp.policy.Candidates.Generated;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One policy run ({@link PolicyEngine#evaluate}): the snapshot's devices decided ({@link Candidates}),
 * shared IOMMU groups offered as one device, every candidate named, its companions and health
 * found, and the result assembled. Working state lives here, never between runs.
 */
final class PolicyEvaluation {

    private final HostSnapshot snapshot;
    private final Optional<PermittedSelectors> selectors;
    private final SortedMap<PciAddress, Decision> functionDecisions;
    private final SortedMap<String, Decision> mdevDecisions;
    private final Map<String, Candidate> candidates;

    PolicyEvaluation(HostSnapshot snapshot, Optional<PermittedSelectors> selectors, PciIds pciIds) {
        Candidates collected = new Candidates(snapshot, selectors, pciIds).collect();
        this.snapshot = snapshot;
        this.selectors = selectors;
        this.functionDecisions = collected.functionDecisions;
        this.mdevDecisions = collected.mdevDecisions;
        this.candidates = collected.candidates;
    }

    PolicyResult run() {
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
                devices.stream().sorted(ExposedDevice.BY_ID).toList())));
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
}
