package io.vfiodp.plugin;

import io.vfiodp.node.TargetState;
import io.vfiodp.host.DevNodes;
import io.vfiodp.host.PciAddress;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Hand-built devices and states for tests that do not need a scanned fixture. */
final class Devices {

    private Devices() {}

    static ExposedDevice pci(String address, int group, int numa) {
        return new ExposedDevice(address, DeviceKind.PCI, PciAddress.parse(address), group, numa, List.of(), Optional.empty(), List.of(),
                Health.HEALTHY);
    }

    /** A PCI device under {@code bridges}, nearest first. */
    static ExposedDevice pciUnder(String address, int group, int numa, String... bridges) {
        return new ExposedDevice(address, DeviceKind.PCI, PciAddress.parse(address), group, numa, List.of(), Optional.empty(),
                Arrays.stream(bridges).map(PciAddress::parse).toList(), Health.HEALTHY);
    }

    static ExposedDevice withCompanions(ExposedDevice d, String... companions) {
        return new ExposedDevice(d.id(), d.kind(), d.pciAddress(), d.iommuGroup(), d.numaNode(),
                Arrays.stream(companions).map(PciAddress::parse).toList(), d.vfioCdev(), d.upstreamBridges(), d.health());
    }

    static ExposedDevice withCdev(ExposedDevice d, String cdev) {
        return new ExposedDevice(d.id(), d.kind(), d.pciAddress(), d.iommuGroup(), d.numaNode(), d.companions(), Optional.of(cdev),
                d.upstreamBridges(), d.health());
    }

    static ExposedDevice mdev(String uuid, String parent, int group, int numa) {
        return new ExposedDevice(uuid, DeviceKind.MDEV, PciAddress.parse(parent), group, numa, List.of(), Optional.empty(), List.of(),
                Health.HEALTHY);
    }

    static DesiredResource resource(String name, ExposedDevice... devices) {
        return new DesiredResource(ResourceName.of(name), devices[0].kind(), List.of(devices));
    }

    static DesiredResource emptyResource(String name, DeviceKind kind) {
        return new DesiredResource(ResourceName.of(name), kind, List.of());
    }

    static TargetState state(DevNodes nodes, DesiredResource... resources) {
        return new TargetState(DesiredState.of(List.of(resources)), nodes);
    }

    static TargetState state(DesiredResource... resources) {
        return state(legacyNodes(resources), resources);
    }

    /** The /dev nodes of a legacy (group-only) VFIO host with a node for every device's group. */
    static DevNodes legacyNodes(DesiredResource... resources) {
        Set<Integer> groups = new java.util.TreeSet<>();
        for (DesiredResource r : resources) for (ExposedDevice d : r.devices()) groups.add(d.iommuGroup());
        return DevNodes.of(true, groups, false, Set.of());
    }

    static ResourceView view(TargetState state, String resource) {
        return ResourceView.allOf(state).get(ResourceName.of(resource));
    }

    /** {@code state} with its healthy devices among {@code ids} turned Unhealthy for {@code reason}, as a rescan would report them. */
    static TargetState unhealthy(TargetState state, Set<String> ids, String reason) {
        List<DesiredResource> resources = state.plugins().resources().values().stream()
                .map(r -> new DesiredResource(r.name(), r.kind(), r.devices().stream()
                        .map(d -> ids.contains(d.id()) && d.health().isHealthy() ? d.withHealth(Health.unhealthy(reason)) : d).toList()))
                .toList();
        return new TargetState(DesiredState.of(resources), state.devNodes());
    }
}
