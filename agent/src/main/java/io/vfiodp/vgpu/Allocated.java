package io.vfiodp.vgpu;

import io.vfiodp.dra.model.DeviceNames;
import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import java.util.HashSet;
import java.util.Set;

/** What the kubelet says is allocated to running containers, or that it could not say. */
public sealed interface Allocated {

    /** Whether {@code deviceId} (an mdev UUID or a VF's PCI address) may be in use. */
    boolean mayBeInUse(String deviceId);

    /**
     * The device ids of every container's devices, from what PodResources {@code List} said: those
     * of device plugins, and those DRA prepared, by the ID their pool name stands for (a vGPU a VM
     * holds through a claim is in use as much as one it holds through a device plugin).
     */
    static Allocated of(PodResourcesReading reading) {
        return switch (reading) {
            case PodResourcesReading.Unreadable u -> new Unknown(u.reason());
            case PodResourcesReading.Listed l -> {
                Set<String> ids = new HashSet<>();
                for (HeldDevice d : l.devices()) {
                    switch (d) {
                        case HeldDevice.ByPlugin p -> ids.add(p.id());
                        case HeldDevice.ByClaim c -> DeviceNames.idOf(c.device()).ifPresent(ids::add);
                    }
                }
                yield new Known(ids);
            }
        };
    }

    /** The device ids of every container's devices, from PodResources {@code List}. */
    record Known(Set<String> deviceIds) implements Allocated {
        public Known {
            deviceIds = Set.copyOf(deviceIds);
        }

        @Override
        public boolean mayBeInUse(String deviceId) {
            return deviceIds.contains(deviceId);
        }
    }

    /** PodResources was not reachable: nothing can be proven free, so nothing is removed. */
    record Unknown(String reason) implements Allocated {
        @Override
        public boolean mayBeInUse(String deviceId) {
            return true;
        }
    }
}
