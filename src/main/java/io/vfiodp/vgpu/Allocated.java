package io.vfiodp.vgpu;

import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import java.util.HashSet;
import java.util.Set;

/** What the kubelet says is allocated to running containers, or that it could not say. */
public sealed interface Allocated {

    /** Whether {@code deviceId} (an mdev UUID or a VF's PCI address) may be in use. */
    boolean mayBeInUse(String deviceId);

    /** The device ids of every container's device-plugin devices, from what PodResources {@code List} said. */
    static Allocated of(PodResourcesReading reading) {
        return switch (reading) {
            case PodResourcesReading.Unreadable u -> new Unknown(u.reason());
            case PodResourcesReading.Listed l -> {
                Set<String> ids = new HashSet<>();
                for (HeldDevice d : l.devices()) if (d instanceof HeldDevice.ByPlugin p) ids.add(p.id());
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
