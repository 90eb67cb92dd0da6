package io.vfiodp.inventory;

import io.vfiodp.dra.model.DeviceNames;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.ScanProblem;
import io.vfiodp.host.VgpuVf;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.Decision;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.PolicyProblem;
import io.vfiodp.policy.PolicyResult;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.policy.Route;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What the inventory command shows, independent of the output format: one row per device the
 * policy decided on (PCI functions by address, then mdevs by UUID), the resources, and what went
 * wrong while scanning or reading the configuration.
 *
 * @param pciIds        where model names come from: the copy of pci.ids, its version and why it was chosen
 * @param configuration the configuration file, empty in default mode
 * @param routing       which resources go through DRA rather than the device plugins
 */
public record InventoryReport(
        PciIds.Origin pciIds,
        Optional<String> configuration,
        List<Row> rows,
        List<ResourceSummary> resources,
        List<ScanProblem> scanProblems,
        List<PolicyProblem> configProblems,
        DraRouting routing) {

    public InventoryReport {
        rows = List.copyOf(rows);
        resources = List.copyOf(resources);
        scanProblems = List.copyOf(scanProblems);
        configProblems = List.copyOf(configProblems);
    }

    public enum Type {
        PCI("pci"), VGPU_VF("vgpu-vf"), MDEV("mdev");

        private final String label;

        Type(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** A vGPU or mdev type: its id ({@code 1147}, {@code nvidia-222}) and name. */
    public record TypeRef(String id, Optional<String> name) {}

    /**
     * One device and the decision about it.
     *
     * @param id           PCI address or mdev UUID
     * @param vendorDevice {@code 10de:1eb8}; for an mdev, its parent's
     * @param classCode    six hex digits; empty for an mdev
     * @param parent       an mdev's parent or a VF's PF
     * @param type         the mdev or current vGPU type
     * @param health       for exposed devices
     * @param draDevice    its name in this node's DRA pool, when its resource goes through DRA
     */
    public record Row(
            String id,
            Type type,
            Optional<String> vendorDevice,
            Optional<String> vendorName,
            Optional<String> model,
            Optional<String> classCode,
            Optional<String> driver,
            OptionalInt iommuGroup,
            List<PciAddress> companions,
            int numaNode,
            Optional<PciAddress> parent,
            Optional<TypeRef> deviceType,
            Optional<Health> health,
            Decision decision,
            Optional<String> draDevice) {

        public Row {
            companions = List.copyOf(companions);
        }
    }

    /** Which way the resource's devices go; the way a row's device goes is its resource's. */
    public Route route(Decision.Exposed exposed) {
        return routing.route(exposed.resource());
    }

    /** @param route device plugin or DRA */
    public record ResourceSummary(String name, DeviceKind kind, List<String> devices, int healthy, Route route) {
        public ResourceSummary {
            devices = List.copyOf(devices);
        }
    }

    /**
     * @param configWarnings warnings from reading the configuration file, listed before the
     *                       policy's own configuration problems
     */
    public static InventoryReport of(HostSnapshot snapshot, PolicyResult result, PciIds pciIds, Optional<String> configuration,
            List<String> configWarnings) {
        return of(snapshot, result, pciIds, configuration, configWarnings, DraRouting.NONE);
    }

    /** As above, the resources {@code routing} names going through DRA. */
    public static InventoryReport of(HostSnapshot snapshot, PolicyResult result, PciIds pciIds, Optional<String> configuration,
            List<String> configWarnings, DraRouting routing) {
        Map<String, ExposedDevice> exposed = new HashMap<>();
        List<ResourceSummary> resources = new ArrayList<>();
        for (DesiredResource r : result.desiredState().resources().values()) {
            int healthy = 0;
            for (ExposedDevice d : r.devices()) {
                exposed.put(d.id(), d);
                if (d.health().isHealthy()) healthy++;
            }
            resources.add(new ResourceSummary(r.name().value(), r.kind(), r.devices().stream().map(ExposedDevice::id).toList(), healthy,
                    routing.route(r.name())));
        }

        List<Row> rows = new ArrayList<>();
        result.functions().forEach((address, decision) -> {
            PciFunction f = snapshot.functions().get(address);
            VgpuVf vf = snapshot.vgpuVfs().get(address);
            Optional<ExposedDevice> d = Optional.ofNullable(exposed.get(address.toString()));
            rows.add(new Row(address.toString(),
                    vf == null ? Type.PCI : Type.VGPU_VF,
                    Optional.of(f.vendorDevice()),
                    pciIds.vendorName(f.vendor()),
                    pciIds.deviceName(f.vendor(), f.device()),
                    Optional.of(String.format("%06x", f.classCode())),
                    f.driver(),
                    f.iommuGroup(),
                    d.map(ExposedDevice::companions).orElse(List.of()),
                    f.numaNode(),
                    f.physfn(),
                    vf == null ? Optional.empty() : Optional.of(new TypeRef(Integer.toString(vf.currentTypeId()), vf.typeName())),
                    d.map(ExposedDevice::health),
                    decision,
                    draDevice(d, decision, routing)));
        });
        result.mdevs().forEach((uuid, decision) -> {
            MdevInstance m = snapshot.mdevs().get(uuid);
            Optional<PciFunction> parent = snapshot.function(m.parent());
            Optional<ExposedDevice> d = Optional.ofNullable(exposed.get(uuid));
            rows.add(new Row(uuid, Type.MDEV,
                    parent.map(PciFunction::vendorDevice),
                    parent.flatMap(p -> pciIds.vendorName(p.vendor())),
                    parent.flatMap(p -> pciIds.deviceName(p.vendor(), p.device())),
                    Optional.empty(),
                    Optional.empty(),
                    m.iommuGroup() < 0 ? OptionalInt.empty() : OptionalInt.of(m.iommuGroup()),
                    List.of(),
                    parent.map(PciFunction::numaNode).orElse(-1),
                    Optional.of(m.parent()),
                    Optional.of(new TypeRef(m.typeId(), Optional.of(m.typeName()))),
                    d.map(ExposedDevice::health),
                    decision,
                    draDevice(d, decision, routing)));
        });

        List<PolicyProblem> configProblems = new ArrayList<>();
        for (String w : configWarnings) configProblems.add(new PolicyProblem(PolicyProblem.Severity.WARNING, w));
        configProblems.addAll(result.problems());
        for (ResourceName r : routing.unmatched(result.desiredState())) {
            configProblems.add(new PolicyProblem(PolicyProblem.Severity.WARNING, "DRA resource " + r + " is not served on this node"));
        }
        return new InventoryReport(pciIds.origin(), configuration, rows, resources, snapshot.problems(), configProblems, routing);
    }

    private static Optional<String> draDevice(Optional<ExposedDevice> d, Decision decision, DraRouting routing) {
        return decision instanceof Decision.Exposed e && routing.route(e.resource()) == Route.DRA ? d.map(DeviceNames::of) : Optional.empty();
    }
}
