package io.vfiodp.policy;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.VgpuVf;
import io.vfiodp.host.pciids.PciIds;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What this node offers through DRA: the resources routed there and a profile for each of their
 * devices, by device ID (PCI address or mdev UUID).
 */
public record DraOffer(DesiredState resources, SortedMap<String, DeviceProfile> profiles) {

    public static final DraOffer EMPTY = new DraOffer(DesiredState.EMPTY, new TreeMap<>());

    public DraOffer {
        Objects.requireNonNull(resources, "resources");
        profiles = Collections.unmodifiableSortedMap(new TreeMap<>(profiles));
        int devices = 0;
        for (DesiredResource r : resources.resources().values()) {
            for (ExposedDevice d : r.devices()) {
                devices++;
                if (!profiles.containsKey(d.id())) throw new IllegalArgumentException("DRA device " + d.id() + " has no profile");
            }
        }
        if (devices != profiles.size()) throw new IllegalArgumentException("DRA offer has profiles of devices it does not offer");
    }

    /**
     * Profiles {@code state}'s devices from the snapshot they were decided on. A device the host
     * took away (served one more pass as Unhealthy, see {@link Departures}) keeps the profile
     * {@code previous} gave it; one without any profile is left out.
     */
    public static DraOffer describe(DesiredState state, HostSnapshot snapshot, PciIds pciIds, DraOffer previous) {
        SortedMap<String, DeviceProfile> profiles = new TreeMap<>();
        List<DesiredResource> kept = new ArrayList<>();
        for (DesiredResource r : state.resources().values()) {
            List<ExposedDevice> devices = new ArrayList<>();
            for (ExposedDevice d : r.devices()) {
                Optional<DeviceProfile> p = profile(d, snapshot, pciIds).or(() -> Optional.ofNullable(previous.profiles().get(d.id())));
                if (p.isEmpty()) continue;
                profiles.put(d.id(), p.get());
                devices.add(d);
            }
            if (!devices.isEmpty()) kept.add(new DesiredResource(r.name(), r.kind(), devices));
        }
        return new DraOffer(DesiredState.of(kept), profiles);
    }

    private static Optional<DeviceProfile> profile(ExposedDevice d, HostSnapshot snapshot, PciIds pciIds) {
        if (d.kind() == DeviceKind.MDEV) {
            MdevInstance m = snapshot.mdevs().get(d.id());
            Optional<PciFunction> parent = snapshot.function(d.pciAddress());
            if (m == null || parent.isEmpty()) return Optional.empty();
            PciFunction p = parent.get();
            return Optional.of(new DeviceProfile(DraKind.MDEV, p.vendor(), p.device(), pciIds.deviceName(p.vendor(), p.device()),
                    p.pcieRoot(), Optional.of(m.typeName()), Optional.of(m.typeId())));
        }
        Optional<PciFunction> function = snapshot.function(d.pciAddress());
        if (function.isEmpty()) return Optional.empty();
        PciFunction f = function.get();
        VgpuVf vf = snapshot.vgpuVfs().get(f.address());
        Optional<String> model = pciIds.deviceName(f.vendor(), f.device());
        if (vf != null && vf.currentTypeId() != 0) {
            return Optional.of(new DeviceProfile(DraKind.SRIOV_VGPU, f.vendor(), f.device(), model, f.pcieRoot(), vf.typeName(),
                    Optional.of(Integer.toString(vf.currentTypeId()))));
        }
        return Optional.of(new DeviceProfile(DraKind.PASSTHROUGH, f.vendor(), f.device(), model, f.pcieRoot(), Optional.empty(),
                Optional.empty()));
    }
}
