package io.vfiodp.dra;

import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.policy.Health;
import io.vfiodp.proto.drahealth.v1alpha1.DeviceHealth;
import io.vfiodp.proto.drahealth.v1alpha1.DeviceIdentifier;
import io.vfiodp.proto.drahealth.v1alpha1.HealthStatus;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The health stream's device list: every device of the pool with its health, the reason when
 * unhealthy (at most {@value #MAX_MESSAGE} characters, as the kubelet keeps them), and when that
 * verdict was reached: a device keeps its stamp while its health stays the same.
 *
 * @param since when each device's present health was first seen, by device name
 * @param sent  the list last sent on the streams (again at every heartbeat); empty before the first
 */
record HealthList(SortedMap<String, Since> since, Optional<NodeWatchResourcesResponse> sent) {

    static final int MAX_MESSAGE = 1024;
    static final HealthList NONE = new HealthList(new TreeMap<>(), Optional.empty());

    /** A device's health and the second it was reached. */
    record Since(Health health, long epochSecond) {}

    HealthList {
        since = Collections.unmodifiableSortedMap(new TreeMap<>(since));
        Objects.requireNonNull(sent, "sent");
    }

    /**
     * The list for {@code view}, a verdict new at {@code epochSecond} stamped with it, as the one
     * sent: the caller sends it when it differs from this one's {@link #sent}.
     */
    HealthList next(String pool, DriverView view, long epochSecond) {
        NodeWatchResourcesResponse.Builder b = NodeWatchResourcesResponse.newBuilder();
        SortedMap<String, Since> next = new TreeMap<>();
        for (DraDevice d : view.devices().values()) {
            Health h = d.device().health();
            Since s = since.get(d.name());
            if (s == null || !s.health().equals(h)) s = new Since(h, epochSecond);
            next.put(d.name(), s);
            DeviceHealth.Builder dh = DeviceHealth.newBuilder()
                    .setDevice(DeviceIdentifier.newBuilder().setPoolName(pool).setDeviceName(d.name()))
                    .setHealth(h.isHealthy() ? HealthStatus.HEALTHY : HealthStatus.UNHEALTHY)
                    .setLastUpdatedTime(s.epochSecond());
            if (h instanceof Health.Unhealthy(String reason)) {
                dh.setMessage(reason.length() <= MAX_MESSAGE ? reason : reason.substring(0, MAX_MESSAGE - 3) + "...");
            }
            b.addDevices(dh);
        }
        return new HealthList(next, Optional.of(b.build()));
    }
}
