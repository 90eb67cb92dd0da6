package io.vfiodp.dra;

import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.policy.Health;
import io.vfiodp.proto.drahealth.v1alpha1.DeviceHealth;
import io.vfiodp.proto.drahealth.v1alpha1.DeviceIdentifier;
import io.vfiodp.proto.drahealth.v1alpha1.HealthStatus;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * The health stream's device list: every device of the pool with its health, the reason when
 * unhealthy (at most 1024 characters, as the kubelet keeps them), and when that verdict was
 * reached. Confined to the driver's thread.
 */
final class HealthList {

    static final int MAX_MESSAGE = 1024;

    private final String pool;
    private final Clock clock;
    private final Map<String, Since> since = new HashMap<>();

    private record Since(Health health, long epochSecond) {}

    HealthList(String pool, Clock clock) {
        this.pool = pool;
        this.clock = clock;
    }

    NodeWatchResourcesResponse of(DriverView view) {
        NodeWatchResourcesResponse.Builder b = NodeWatchResourcesResponse.newBuilder();
        Map<String, Since> next = new HashMap<>();
        for (DraDevice d : view.devices().values()) {
            Health h = d.device().health();
            Since s = since.get(d.name());
            if (s == null || !s.health().equals(h)) s = new Since(h, clock.instant().getEpochSecond());
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
        since.clear();
        since.putAll(next);
        return b.build();
    }
}
