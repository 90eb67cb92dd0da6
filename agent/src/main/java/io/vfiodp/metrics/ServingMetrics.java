package io.vfiodp.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.dra.DraListener;
import io.vfiodp.dra.DraStatus;
import io.vfiodp.dra.classes.ClassVerdict;
import io.vfiodp.host.vfio.VfioAvailability;
import io.vfiodp.plugin.PluginListener;
import io.vfiodp.plugin.ResourceStatus;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.PolicyProblem;
import io.vfiodp.policy.ResourceName;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;

/**
 * Metrics of the serving side: what is advertised, what the kubelet did with it, and how the
 * scans that feed it went. Counters are fed as things happen; device counts are set from the
 * reconcile loop's status just before each scrape.
 */
public final class ServingMetrics implements PluginListener {

    /** The values of {@code vfio_dp_vgpu_layout_state}'s label: those of the vGPU layout's node annotation. */
    private static final List<String> VGPU_LAYOUT_STATES = List.of("pending", "success", "failed");

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
    private final Gauge passthroughPossible;
    private final Gauge passthroughBlocked;
    private final Gauge configEntryErrors;
    private final Gauge kubevirtCrReadable;
    private final Gauge vgpuLayoutState;
    private final Gauge draDevices;
    private final Gauge draRegistered;
    private final Gauge draPreparedClaims;
    private final Gauge draSlicesPublished;
    private final Counter draPrepareErrors;
    private final Gauge draDeviceClassReady;

    /**
     * Every metric is built without exemplars: {@code /metrics} writes the Prometheus text format,
     * which has none, and the plugin carries no tracer to take them from; with them (the library's
     * default) each observation also schedules a reset on the library's own thread,
     * {@code prometheus-metrics-scheduler-0}, and loads its sampler and tracer lookup.
     */
    public ServingMetrics(PrometheusRegistry registry, String version, Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        Gauge.builder().withoutExemplars().name("vfio_dp_build_info").help("Always 1; the version label says which build runs")
                .labelNames("version").register(registry).labelValues(version).set(1);
        devices = Gauge.builder().withoutExemplars().name("vfio_dp_devices").help("Devices advertised to the kubelet, by resource and health")
                .labelNames("resource", "health").register(registry);
        registered = Gauge.builder().withoutExemplars().name("vfio_dp_resource_registered")
                .help("1 while the current kubelet has accepted the resource's registration, 0 while it has not (yet), by resource")
                .labelNames("resource").register(registry);
        allocations = Counter.builder().withoutExemplars().name("vfio_dp_allocations").help("Devices handed out by Allocate, by resource")
                .labelNames("resource").register(registry);
        allocationErrors = Counter.builder().withoutExemplars().name("vfio_dp_allocation_errors").help("Allocate calls refused, by resource")
                .labelNames("resource").register(registry);
        registrations = Counter.builder().withoutExemplars().name("vfio_dp_registrations").help("Registrations the kubelet accepted, by resource")
                .labelNames("resource").register(registry);
        reregistrations = Counter.builder().withoutExemplars().name("vfio_dp_reregistrations")
                .help("Registrations of a resource that had been registered before (kubelet restart, socket removed), by resource")
                .labelNames("resource").register(registry);
        scanDuration = Histogram.builder().withoutExemplars().name("vfio_dp_scan_duration_seconds").help("Duration of a full sysfs scan and policy pass")
                .classicOnly().classicUpperBounds(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
                .register(registry);
        reconcileDuration = Histogram.builder().withoutExemplars().name("vfio_dp_reconcile_duration_seconds")
                .help("Duration of a reconcile pass: servers started or stopped, ListAndWatch updates sent, registrations made")
                .classicOnly().classicUpperBounds(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1)
                .register(registry);
        scanFailures = Counter.builder().withoutExemplars().name("vfio_dp_scan_failures").help("Scans that failed; the previous state stayed in service")
                .register(registry);
        lastScan = Gauge.builder().withoutExemplars().name("vfio_dp_last_successful_scan_timestamp_seconds")
                .help("Unix time of the last scan that succeeded").register(registry);
        healthTransitions = Counter.builder().withoutExemplars().name("vfio_dp_health_transitions")
                .help("Device health changes, by resource, new health and reason (empty when Healthy)")
                .labelNames("resource", "health", "reason").register(registry);
        vfioAvailable = Gauge.builder().withoutExemplars().name("vfio_dp_vfio_available")
                .help("1 when /dev/vfio/vfio answered the VFIO API and type1 IOMMU ioctls at start, else 0").register(registry);
        passthroughPossible = Gauge.builder().withoutExemplars().name("vfio_dp_passthrough_possible")
                .help("1 while some device of this node can be passed through (healthy and offered), 0 while none can; set by every pass")
                .register(registry);
        passthroughBlocked = Gauge.builder().withoutExemplars().name("vfio_dp_passthrough_blocked")
                .help("1 for every doctor check that fails while no device can be passed through (iommu, vfio.modules, passthrough, ...),"
                        + " by check; none while some device can")
                .labelNames("check").register(registry);
        configEntryErrors = Gauge.builder().withoutExemplars().name("vfio_dp_config_entry_errors")
                .help("1 for every permittedHostDevices entry currently skipped because it is invalid, by reason and entry "
                        + "(e.g. pciHostDevices[2])")
                .labelNames("reason", "entry").register(registry);
        kubevirtCrReadable = Gauge.builder().withoutExemplars().name("vfio_dp_kubevirt_cr_readable")
                .help("1 while the KubeVirt CRs can be listed and watched (or KubeVirt is not installed), 0 while the API refuses or fails; "
                        + "only with --kubevirt auto and an API")
                .register(registry);
        vgpuLayoutState = Gauge.builder().withoutExemplars().name("vfio_dp_vgpu_layout_state")
                .help("1 for the state of the last vGPU layout reconcile (pending, success, failed), 0 for the others; only with --manage-vgpus")
                .labelNames("state").register(registry);
        draDevices = Gauge.builder().withoutExemplars().name("vfio_dp_dra_devices")
                .help("Devices offered through DRA, by driver, resource and health; the Unhealthy ones are tainted NoSchedule in the ResourceSlices")
                .labelNames("driver", "resource", "health").register(registry);
        draRegistered = Gauge.builder().withoutExemplars().name("vfio_dp_dra_registered")
                .help("1 while the current kubelet has accepted the DRA driver's registration, 0 while it has not (yet); only with --dra-resources")
                .labelNames("driver").register(registry);
        draPreparedClaims = Gauge.builder().withoutExemplars().name("vfio_dp_dra_prepared_claims")
                .help("ResourceClaims prepared on this node and not unprepared yet, by driver").labelNames("driver").register(registry);
        draSlicesPublished = Gauge.builder().withoutExemplars().name("vfio_dp_dra_slices_published")
                .help("1 while this node's ResourceSlices hold what the DRA driver offers, 0 while writing them fails, by driver")
                .labelNames("driver").register(registry);
        draPrepareErrors = Counter.builder().withoutExemplars().name("vfio_dp_dra_prepare_errors")
                .help("ResourceClaims the kubelet asked the DRA driver to prepare and that got an error instead of devices, by driver")
                .labelNames("driver").register(registry);
        draDeviceClassReady = Gauge.builder().withoutExemplars().name("vfio_dp_dra_device_class_ready")
                .help("1 while the DeviceClass with spec.extendedResourceName of a resource routed to DRA is in the API as"
                        + " inventory --device-classes prints it, 0 while it is missing, different or unreadable (pods asking the resource"
                        + " are then not served here), by driver, resource and class")
                .labelNames("driver", "resource", "device_class").register(registry);
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

    /** Replaces the DRA driver's device counts and standing with its current status. */
    public synchronized void dra(DraStatus status) {
        draDevices.clear();
        for (DraStatus.Resource r : status.resources()) {
            draDevices.labelValues(status.driver(), r.name().value(), "Healthy").set(r.healthy());
            draDevices.labelValues(status.driver(), r.name().value(), "Unhealthy").set(r.devices() - r.healthy());
        }
        draRegistered.labelValues(status.driver()).set(status.isRegistered() ? 1 : 0);
        draPreparedClaims.labelValues(status.driver()).set(status.preparedClaims());
        draSlicesPublished.labelValues(status.driver()).set(status.sliceProblem().isEmpty() ? 1 : 0);
    }

    /**
     * What DRA driver {@code driver} reports as it happens: health changes count with the device
     * plugins' ({@code vfio_dp_health_transitions}, a resource goes one way only), failed prepares apart.
     */
    public DraListener draListener(String driver) {
        draPrepareErrors.labelValues(driver);
        return new DraListener() {
            @Override
            public void healthChanged(ResourceName resource, String deviceId, Health from, Health to) {
                ServingMetrics.this.healthChanged(resource, deviceId, from, to);
            }

            @Override
            public void prepareFailed(String reason) {
                draPrepareErrors.labelValues(driver).inc();
            }

            @Override
            public void deviceClasses(SortedMap<ResourceName, ClassVerdict> before, SortedMap<ResourceName, ClassVerdict> now) {
                deviceClassesChecked(driver, now);
            }
        };
    }

    private synchronized void deviceClassesChecked(String driver, SortedMap<ResourceName, ClassVerdict> verdicts) {
        draDeviceClassReady.clear();
        verdicts.forEach((resource, v) -> draDeviceClassReady.labelValues(driver, resource.value(), className(v)).set(v.ready() ? 1 : 0));
    }

    private static String className(ClassVerdict v) {
        return switch (v) {
            case ClassVerdict.Ready r -> r.className();
            case ClassVerdict.Missing m -> m.className();
            case ClassVerdict.Differs d -> d.className();
            case ClassVerdict.Unreadable u -> u.className();
            case ClassVerdict.Unnamable u -> "";
        };
    }

    public void scanSucceeded(double seconds) {
        scanDuration.observe(seconds);
        lastScan.set(clock.millis() / 1000.0);
    }

    public void scanFailed(double seconds) {
        scanDuration.observe(seconds);
        scanFailures.inc();
    }

    /**
     * Replaces the set of currently skipped configuration entries with those {@code problems} (all
     * of one configuration's) name: entries fixed since the last call disappear from the metric.
     */
    public synchronized void configEntryErrors(List<PolicyProblem> problems) {
        configEntryErrors.clear();
        for (PolicyProblem p : problems) {
            EntryErrorLabels l = EntryErrorLabels.of(p);
            configEntryErrors.labelValues(l.reason(), l.entry()).set(1);
        }
    }

    /** Whether the last attempt to list or watch the KubeVirt CRs got an answer the configuration can follow. */
    public void kubevirtCrReadable(boolean readable) {
        kubevirtCrReadable.set(readable ? 1 : 0);
    }

    /**
     * The state the last vGPU layout reconcile reported, as the node annotation writes it:
     * {@code pending}, {@code success} or {@code failed}.
     */
    public synchronized void vgpuLayoutState(String state) {
        if (!VGPU_LAYOUT_STATES.contains(state)) {
            throw new IllegalArgumentException("not a vGPU layout state: '" + state + "' (expected one of " + VGPU_LAYOUT_STATES + ")");
        }
        for (String s : VGPU_LAYOUT_STATES) vgpuLayoutState.labelValues(s).set(s.equals(state) ? 1 : 0);
    }

    /** Whether some device can be passed through, and else the checks that fail; replaces the previous pass's. */
    public synchronized void passthrough(boolean possible, Collection<String> failingChecks) {
        passthroughPossible.set(possible ? 1 : 0);
        passthroughBlocked.clear();
        for (String check : failingChecks) passthroughBlocked.labelValues(check).set(1);
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
