package io.vfiodp.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.host.VfioAvailability;
import io.vfiodp.plugin.PluginListener;
import io.vfiodp.plugin.ResourceStatus;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.time.Clock;
import java.util.Collection;
import java.util.Objects;

/**
 * Metrics of the serving side: what is advertised, what the kubelet did with it, and how the
 * scans that feed it went. Counters are fed as things happen; device counts are set from the
 * reconcile loop's status just before each scrape.
 */
public final class ServingMetrics implements PluginListener {

    private final Clock clock;
    private final Gauge devices;
    private final Gauge registered;
    private final Histogram reconcileDuration;
    private final Counter allocations;
    private final Counter allocationErrors;
    private final Counter registrations;
    private final Counter reregistrations;
    private final Histogram scanDuration;
    private final Counter scanFailures;
    private final Gauge lastScan;
    private final Counter healthTransitions;
    private final Gauge vfioAvailable;

    public ServingMetrics(PrometheusRegistry registry, String version, Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        Gauge.builder().name("vfio_dp_build_info").help("Always 1; the version label says which build runs")
                .labelNames("version").register(registry).labelValues(version).set(1);
        devices = Gauge.builder().name("vfio_dp_devices").help("Devices advertised to the kubelet, by resource and health")
                .labelNames("resource", "health").register(registry);
        registered = Gauge.builder().name("vfio_dp_resource_registered")
                .help("1 while the current kubelet has accepted the resource's registration, 0 while it has not (yet), by resource")
                .labelNames("resource").register(registry);
        allocations = Counter.builder().name("vfio_dp_allocations").help("Devices handed out by Allocate, by resource")
                .labelNames("resource").register(registry);
        allocationErrors = Counter.builder().name("vfio_dp_allocation_errors").help("Allocate calls refused, by resource")
                .labelNames("resource").register(registry);
        registrations = Counter.builder().name("vfio_dp_registrations").help("Registrations the kubelet accepted, by resource")
                .labelNames("resource").register(registry);
        reregistrations = Counter.builder().name("vfio_dp_reregistrations")
                .help("Registrations of a resource that had been registered before (kubelet restart, socket removed), by resource")
                .labelNames("resource").register(registry);
        scanDuration = Histogram.builder().name("vfio_dp_scan_duration_seconds").help("Duration of a full sysfs scan and policy pass")
                .classicOnly().classicUpperBounds(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
                .register(registry);
        reconcileDuration = Histogram.builder().name("vfio_dp_reconcile_duration_seconds")
                .help("Duration of a reconcile pass: servers started or stopped, ListAndWatch updates sent, registrations made")
                .classicOnly().classicUpperBounds(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1)
                .register(registry);
        scanFailures = Counter.builder().name("vfio_dp_scan_failures").help("Scans that failed; the previous state stayed in service")
                .register(registry);
        lastScan = Gauge.builder().name("vfio_dp_last_successful_scan_timestamp_seconds")
                .help("Unix time of the last scan that succeeded").register(registry);
        healthTransitions = Counter.builder().name("vfio_dp_health_transitions")
                .help("Device health changes, by resource, new health and reason (empty when Healthy)")
                .labelNames("resource", "health", "reason").register(registry);
        vfioAvailable = Gauge.builder().name("vfio_dp_vfio_available")
                .help("1 when /dev/vfio/vfio answered the VFIO API and type1 IOMMU ioctls at start, else 0").register(registry);
    }

    /** Replaces the device counts and registrations with the loop's current standing; resources gone since disappear. */
    public synchronized void resources(Collection<ResourceStatus> statuses) {
        devices.clear();
        registered.clear();
        for (ResourceStatus s : statuses) {
            devices.labelValues(s.name().value(), "Healthy").set(s.healthy());
            devices.labelValues(s.name().value(), "Unhealthy").set(s.devices() - s.healthy());
            registered.labelValues(s.name().value()).set(s.registered() ? 1 : 0);
        }
    }

    public void scanSucceeded(double seconds) {
        scanDuration.observe(seconds);
        lastScan.set(clock.millis() / 1000.0);
    }

    public void scanFailed(double seconds) {
        scanDuration.observe(seconds);
        scanFailures.inc();
    }

    public void vfio(VfioAvailability availability) {
        vfioAvailable.set(availability instanceof VfioAvailability.Available ? 1 : 0);
    }

    @Override
    public void allocated(ResourceName resource, int count) {
        allocations.labelValues(resource.value()).inc(count);
    }

    @Override
    public void allocationRefused(ResourceName resource) {
        allocationErrors.labelValues(resource.value()).inc();
    }

    @Override
    public void registered(ResourceName resource, boolean again) {
        registrations.labelValues(resource.value()).inc();
        if (again) reregistrations.labelValues(resource.value()).inc();
    }

    @Override
    public void reconciled(double seconds) {
        reconcileDuration.observe(seconds);
    }

    @Override
    public void healthChanged(ResourceName resource, String deviceId, Health from, Health to) {
        String reason = to instanceof Health.Unhealthy(String r) ? r : "";
        healthTransitions.labelValues(resource.value(), to.wireValue(), reason).inc();
    }
}
