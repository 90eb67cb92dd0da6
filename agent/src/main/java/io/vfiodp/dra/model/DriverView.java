package io.vfiodp.dra.model;

import io.vfiodp.host.DevNodes;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.ExposedDevice;
import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The devices this node offers through DRA right now, by pool device name, with the health the
 * scan and policy gave them: an immutable snapshot that gRPC handlers and the slice publisher read.
 */
public record DriverView(SortedMap<String, DraDevice> devices, DevNodes devNodes) {

    public static final DriverView EMPTY = new DriverView(new TreeMap<>(), DevNodes.NONE);

    public DriverView {
        devices = Collections.unmodifiableSortedMap(new TreeMap<>(devices));
    }

    /** The view of {@code target}'s DRA part, {@code numaNode} scalar. */
    public static DriverView of(TargetState target) {
        return of(target, NumaForm.SCALAR);
    }

    /** The view of {@code target}'s DRA part, {@code numaNode} in the form {@code numa} says. */
    public static DriverView of(TargetState target, NumaForm numa) {
        SortedMap<String, DraDevice> devices = new TreeMap<>();
        for (DesiredResource r : target.dra().resources().resources().values()) {
            for (ExposedDevice d : r.devices()) {
                var profile = target.dra().profiles().get(d.id());
                String name = DeviceNames.of(d);
                devices.put(name, new DraDevice(name, d, r.name(), profile, DeviceAttributes.of(d, r.name(), profile, numa)));
            }
        }
        return new DriverView(devices, target.devNodes());
    }

    public Optional<DraDevice> device(String name) {
        return Optional.ofNullable(devices.get(name));
    }
}
