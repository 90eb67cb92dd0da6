package io.vfiodp.dra.classes;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.triggers.Worker;
import java.time.Duration;
import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ScheduledFuture;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads, for each resource routed to DRA, the DeviceClass it needs ({@link ExtendedResourceClasses}),
 * by name: only {@code get} on deviceclasses. The agent never writes a class: one with
 * {@code spec.extendedResourceName} steers that extended resource cluster-wide, which no node's
 * agent should be able to do; the operator applies what {@code inventory --device-classes} prints.
 * A class missing or different is logged when it becomes so and when it is fixed, and told to
 * {@code changed} (metrics, Node Events) with the verdicts before and after.
 *
 * <p>A class is read as a generic resource, a JSON tree {@link DeviceClassComparison} reads:
 * fabric8's typed reading would have Jackson introspect the class's whole model, which serve would
 * keep for nothing (docs/benchmarks.md).
 *
 * <p>Runs on the worker it is given (the driver's API thread), when the routed resources change
 * and every {@code period}; its state is confined to that thread.
 */
public final class DeviceClassMonitor implements AutoCloseable {

    /** Named outright: the client then asks no discovery for the plural. */
    static final ResourceDefinitionContext CLASSES = new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io").withVersion("v1")
            .withKind("DeviceClass").withPlural("deviceclasses").withNamespaced(false).build();
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final KubernetesClient client;
    private final String driver;
    private final Worker thread;
    private final BiConsumer<SortedMap<ResourceName, ClassVerdict>, SortedMap<ResourceName, ClassVerdict>> changed;
    private final ScheduledFuture<?> periodic;
    // Confined to the worker.
    private SortedSet<ResourceName> resources = new TreeSet<>();
    private SortedMap<ResourceName, ClassVerdict> verdicts = new TreeMap<>();

    /** @param changed told the verdicts before and after, whenever one changed */
    public DeviceClassMonitor(KubernetesClient client, String driver, Worker thread, Duration period,
                              BiConsumer<SortedMap<ResourceName, ClassVerdict>, SortedMap<ResourceName, ClassVerdict>> changed) {
        this.client = client;
        this.driver = driver;
        this.thread = thread;
        this.changed = changed;
        this.periodic = thread.every(period, this::check);
    }

    /** Check the classes of {@code routed} from now on; at once when they differ from the last ones. */
    public void watch(SortedSet<ResourceName> routed) {
        SortedSet<ResourceName> copy = Collections.unmodifiableSortedSet(new TreeSet<>(routed));
        thread.offer(() -> {
            if (copy.equals(resources) && !verdicts.isEmpty()) return;
            resources = copy;
            check();
        });
    }

    private void check() {
        SortedMap<ResourceName, ClassVerdict> next = new TreeMap<>();
        for (ExtendedResourceClasses.Outcome o : ExtendedResourceClasses.of(driver, resources)) {
            next.put(o.resource(), switch (o) {
                case ExtendedResourceClasses.Named n -> read(n.deviceClass());
                case ExtendedResourceClasses.Unnamable u -> new ClassVerdict.Unnamable(u.reason());
            });
        }
        if (next.equals(verdicts)) return;
        next.forEach((resource, v) -> {
            if (v.equals(verdicts.get(resource))) return;
            if (v.ready()) {
                log.info("DRA: {}: {}", resource.value(), v.describe());
            } else {
                log.warn("DRA: {}: {}", resource.value(), v.describe());
            }
        });
        SortedMap<ResourceName, ClassVerdict> before = verdicts;
        verdicts = Collections.unmodifiableSortedMap(next);
        changed.accept(before, verdicts);
    }

    private ClassVerdict read(ExtendedResourceClass expected) {
        try {
            GenericKubernetesResource found = client.genericKubernetesResources(CLASSES).withName(expected.name()).get();
            return DeviceClassComparison.verdict(expected, Optional.ofNullable(found));
        } catch (KubernetesClientException e) {
            return new ClassVerdict.Unreadable(expected.name(), (e.getCode() > 0 ? "HTTP " + e.getCode() + ": " : "") + e.getMessage());
        } catch (RuntimeException e) {
            return new ClassVerdict.Unreadable(expected.name(), e.toString());
        }
    }

    /** Stops the periodic check; the worker is its owner's to close. */
    @Override
    public void close() {
        periodic.cancel(false);
    }
}
