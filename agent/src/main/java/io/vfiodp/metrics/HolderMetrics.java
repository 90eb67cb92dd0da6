package io.vfiodp.metrics;

import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.holders.Holder;
import io.vfiodp.holders.Holding;
import io.vfiodp.holders.HolderView;

/**
 * Which VM holds which device, in the one registry: a series per device and container that holds
 * it ({@code vfio_dp_device_holder_info}, always 1), gone when the device is free, so that the
 * number of series stays within the node's devices (times the pods sharing a claim); and whether
 * the holders are known at all ({@code vfio_dp_device_holders_known}): while PodResources cannot
 * be read there is no series, which would read as "free".
 */
public final class HolderMetrics {

    private final Gauge holders;
    private final Gauge known;

    public HolderMetrics(PrometheusRegistry registry) {
        holders = Gauge.builder().withoutExemplars().name("vfio_dp_device_holder_info")
                .help("1 for every container that holds a device of this node, by resource, device (PCI address or mdev UUID), namespace,"
                        + " pod, container, claim (namespace/name when through DRA, else empty), vmi and vm (empty when the pod runs none"
                        + " or the API cannot tell); none for a free device")
                .labelNames("resource", "device", "namespace", "pod", "container", "claim", "vmi", "vm").register(registry);
        known = Gauge.builder().withoutExemplars().name("vfio_dp_device_holders_known")
                .help("1 while the kubelet's PodResources API answers, so that a device without vfio_dp_device_holder_info is free; 0 while"
                        + " it cannot be read and who holds what is unknown")
                .register(registry);
    }

    /** Replaces every series with {@code view}'s holders. */
    public synchronized void holders(HolderView view) {
        holders.clear();
        known.set(view.unknownHolders().isEmpty() ? 1 : 0);
        for (HolderView.Entry e : view.entries()) {
            if (!(e.holding() instanceof Holding.Held held)) continue;
            for (Holder h : held.holders()) {
                String resource = h.via() instanceof Holder.Via.Plugin p ? p.resource() : e.device().resource().value();
                String claim = h.via() instanceof Holder.Via.Claim c ? c.toString() : "";
                holders.labelValues(resource, e.device().id(), h.namespace(), h.pod(), h.container(), claim,
                        h.vmi().map(Holder.Vmi::name).orElse(""), h.vmi().flatMap(Holder.Vmi::vm).orElse("")).set(1);
            }
        }
    }
}
