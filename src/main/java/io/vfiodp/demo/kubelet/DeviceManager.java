package io.vfiodp.demo.kubelet;

import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The kubelet device manager's account of what each plugin advertised, and the node capacity and
 * allocatable it makes of it, as kubernetes/kubernetes {@code pkg/kubelet/cm/devicemanager/}
 * keeps them ({@code manager.go} at 7510f32987: PluginConnected, genericDeviceUpdateCallback,
 * PluginDisconnected, markResourceUnhealthy, GetCapacity, readCheckpoint; {@code endpoint.go} at
 * 0c19dc02cf: stopGracePeriodExpired; {@code types.go} at 28f88c77b6: endpointStopGracePeriod):
 *
 * <ul>
 *   <li>a ListAndWatch list replaces the resource's devices, Healthy ones allocatable; an empty
 *       list leaves the resource with none at once;</li>
 *   <li>when the stream ends ({@code plugin/v1beta1/client.go} Run returns, {@code handler.go}
 *       runClient disconnects the client) every device turns Unhealthy and the endpoint is
 *       stopped: the capacity stays, allocatable is 0, for {@link #STOP_GRACE}; the first look
 *       after that drops the resource;</li>
 *   <li>a registration makes a new endpoint; the devices stay as they were until its first list;</li>
 *   <li>a kubelet restart keeps each resource from its checkpoint with no devices and a stopped
 *       endpoint, so its capacity is 0 until the plugin registers again, for the same grace.</li>
 * </ul>
 *
 * Only the stream the kubelet holds for a resource counts: a stream that a later registration
 * replaced, or that a test opened besides, changes nothing.
 */
final class DeviceManager {

    /** {@code endpointStopGracePeriod}. */
    static final Duration STOP_GRACE = Duration.ofMinutes(5);

    /** One resource: its devices by health, its current stream, when its endpoint stopped. */
    private static final class Entry {
        Set<String> healthy = new TreeSet<>();
        Set<String> unhealthy = new TreeSet<>();
        Object stream;
        Instant stoppedAt;
        boolean listed;
    }

    private final Clock clock;
    private final Map<String, Entry> resources = new HashMap<>();

    DeviceManager(Clock clock) {
        this.clock = clock;
    }

    /** PluginConnected: {@code stream} is now the resource's endpoint. */
    synchronized void connected(String resource, Object stream) {
        Entry e = resources.computeIfAbsent(resource, r -> new Entry());
        e.stream = stream;
        e.stoppedAt = null;
    }

    /** genericDeviceUpdateCallback: the list replaces the devices. */
    synchronized void listed(String resource, Object stream, ListAndWatchResponse list) {
        Entry e = resources.get(resource);
        if (e == null || e.stream != stream) return;
        e.healthy = new TreeSet<>();
        e.unhealthy = new TreeSet<>();
        for (Device d : list.getDevicesList()) (d.getHealth().equals("Healthy") ? e.healthy : e.unhealthy).add(d.getID());
        e.listed = true;
    }

    /** PluginDisconnected: markResourceUnhealthy, and the endpoint's stop time. */
    synchronized void ended(String resource, Object stream) {
        Entry e = resources.get(resource);
        if (e == null || e.stream != stream) return;
        e.unhealthy.addAll(e.healthy);
        e.healthy = new TreeSet<>();
        e.stream = null;
        e.stoppedAt = clock.instant();
    }

    /** A new kubelet process: readCheckpoint's empty device sets and stopped endpoints. */
    synchronized void restarted() {
        resources.values().removeIf(e -> !e.listed);
        for (Entry e : resources.values()) {
            e.healthy = new TreeSet<>();
            e.unhealthy = new TreeSet<>();
            e.stream = null;
            e.stoppedAt = clock.instant();
        }
    }

    /**
     * GetCapacity: every resource the node lists, by name; a resource whose endpoint stopped more
     * than {@link #STOP_GRACE} ago is dropped for good. A registered resource that has sent no list
     * yet is not listed.
     */
    synchronized Map<String, NodeResource> capacity() {
        Instant now = clock.instant();
        resources.values().removeIf(e -> e.stoppedAt != null && Duration.between(e.stoppedAt, now).compareTo(STOP_GRACE) > 0);
        Map<String, NodeResource> out = new TreeMap<>();
        resources.forEach((name, e) -> {
            if (e.listed) out.put(name, new NodeResource(e.healthy, e.unhealthy, Optional.ofNullable(e.stoppedAt)));
        });
        return out;
    }
}
