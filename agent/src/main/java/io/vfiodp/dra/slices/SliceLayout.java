package io.vfiodp.dra.slices;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.vfiodp.dra.model.AttributeValue;
import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.dra.model.JsonTree;
import io.vfiodp.policy.Health;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How this node's pool is laid out in ResourceSlices: its devices in name order, slices named
 * {@code <node>-<driver>-<index>}, each of {@value #MAX_DEVICES} consecutive devices. That is the
 * API's limit for a slice one of whose devices carries a taint or a list-typed attribute
 * ({@code ResourceSliceMaxDevicesWithAdvancedFeatures}; 128 otherwise): any device may turn
 * unhealthy at any moment, and laid out for it, a health change never moves a device to another
 * slice. It changes one slice, which the publisher updates in place (see {@link SlicePublisher}).
 *
 * <p>An unhealthy device stays in its slice with a {@code NoSchedule} {@link HealthTaint} saying
 * why, where the API server keeps taints (feature DRADeviceTaints); where it drops them, the device
 * leaves the slice instead, since it would otherwise be allocatable. NoSchedule, not NoExecute: a
 * health flap must not evict a running VM, as the device plugin side only stops new allocations.
 *
 * <p>A slice is written and read as a JSON tree (a generic resource), not fabric8's typed model,
 * which Jackson would introspect whole, builders included, for the few fields a slice of ours
 * holds (docs/benchmarks.md).
 */
public final class SliceLayout {

    public static final int MAX_DEVICES = 64;
    private static final int MAX_NAME = 253;

    private SliceLayout() {}

    /** A device entry as the comparison sees it: name, attributes and taints (without the time the API server stamps them with). */
    public record Entry(String name, SortedMap<String, AttributeValue> attributes, List<HealthTaint> taints) {
        public Entry {
            Objects.requireNonNull(name, "name");
            attributes = Collections.unmodifiableSortedMap(new TreeMap<>(attributes));
            taints = List.copyOf(taints);
        }

        public Entry(String name, SortedMap<String, AttributeValue> attributes) {
            this(name, attributes, List.of());
        }

        public boolean tainted() {
            return !taints.isEmpty();
        }
    }

    /** Every device of the view in name order, an unhealthy one with the taint of {@code driver} that says why. */
    public static List<Entry> entries(DriverView view, String driver) {
        List<Entry> out = new ArrayList<>(view.devices().size());
        for (DraDevice d : view.devices().values()) {
            List<HealthTaint> taints = d.device().health() instanceof Health.Unhealthy(String reason)
                    ? List.of(HealthTaint.unhealthy(driver, reason)) : List.of();
            out.add(new Entry(d.name(), d.attributes(), taints));
        }
        return out;
    }

    /**
     * {@code entries} cut into slices of {@value #MAX_DEVICES} in order, whatever their health.
     * With {@code taints}, every entry goes in; without (the API server drops them), the tainted
     * ones are left out of their slice, and a slice left empty goes. None when nothing is left.
     */
    public static List<List<Entry>> slices(List<Entry> entries, boolean taints) {
        List<List<Entry>> slices = new ArrayList<>();
        for (int start = 0; start < entries.size(); start += MAX_DEVICES) {
            List<Entry> slice = entries.subList(start, Math.min(entries.size(), start + MAX_DEVICES)).stream()
                    .filter(e -> taints || !e.tainted()).toList();
            if (!slice.isEmpty()) slices.add(slice);
        }
        return slices;
    }

    /** Whether any entry carries a taint: only then does it matter whether the API server keeps them. */
    public static boolean anyTainted(List<Entry> entries) {
        for (Entry e : entries) if (e.tainted()) return true;
        return false;
    }

    public static String sliceName(String node, String driver, int index) {
        return sliceName(node, driver, Integer.toString(index));
    }

    private static String sliceName(String node, String driver, String suffix) {
        String name = node + "-" + driver + "-" + suffix;
        if (name.length() <= MAX_NAME) return name;
        return "vfio-" + digest(node + "/" + driver) + "-" + suffix;
    }

    /**
     * What {@link SlicePublisher#probeTaints} asks the API server to create in a dry run: a slice of
     * this node's pool (named unlike any real one) with one device, {@code taint-probe}, carrying {@code taint}.
     */
    static GenericKubernetesResource probe(String driver, String node, HealthTaint taint) {
        GenericKubernetesResource s = slice(driver, node, 0, 1, 0, List.of(new Entry("taint-probe", new TreeMap<>(), List.of(taint))),
                Optional.empty());
        s.getMetadata().setName(sliceName(node, driver, "taint-probe"));
        return s;
    }

    /** Slice {@code index} of {@code count}, owned by the Node when its UID is known, so that it goes when the Node does. */
    public static GenericKubernetesResource slice(String driver, String node, int index, int count, long generation, List<Entry> entries,
            Optional<String> nodeUid) {
        List<Object> devices = new ArrayList<>();
        for (Entry e : entries) {
            Map<String, Object> attributes = new LinkedHashMap<>();
            e.attributes().forEach((k, v) -> attributes.put(k, attribute(v)));
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("name", e.name());
            d.put("attributes", attributes);
            if (e.tainted()) d.put("taints", new ArrayList<>(e.taints().stream().map(SliceLayout::deviceTaint).toList()));
            devices.add(d);
        }
        Map<String, Object> pool = new LinkedHashMap<>();
        pool.put("name", node);
        pool.put("generation", generation);
        pool.put("resourceSliceCount", (long) count);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("driver", driver);
        spec.put("nodeName", node);
        spec.put("pool", pool);
        spec.put("devices", devices);
        ObjectMeta metadata = new ObjectMeta();
        metadata.setName(sliceName(node, driver, index));
        nodeUid.ifPresent(uid -> {
            OwnerReference owner = new OwnerReference();
            owner.setApiVersion("v1");
            owner.setKind("Node");
            owner.setName(node);
            owner.setUid(uid);
            owner.setController(true);
            metadata.setOwnerReferences(List.of(owner));
        });
        GenericKubernetesResource slice = new GenericKubernetesResource();
        slice.setApiVersion(SlicePublisher.SLICES.getGroup() + "/" + SlicePublisher.SLICES.getVersion());
        slice.setKind(SlicePublisher.SLICES.getKind());
        slice.setMetadata(metadata);
        slice.setAdditionalProperty("spec", spec);
        return slice;
    }

    /** What a slice from the API holds, in the comparison's terms; empty when an attribute is of a kind this driver never writes. */
    public static Optional<List<Entry>> entries(GenericKubernetesResource slice) {
        List<Entry> out = new ArrayList<>();
        for (Object d : devices(slice)) {
            SortedMap<String, AttributeValue> attributes = new TreeMap<>();
            for (Map.Entry<String, Object> a : JsonTree.map(d, "attributes").entrySet()) {
                Optional<AttributeValue> v = value(a.getValue());
                if (v.isEmpty()) return Optional.empty();
                attributes.put(a.getKey(), v.get());
            }
            List<HealthTaint> taints = new ArrayList<>();
            for (Object t : JsonTree.list(d, "taints")) {
                Optional<HealthTaint> taint = taint(t);
                if (taint.isEmpty()) return Optional.empty();
                taints.add(taint.get());
            }
            String name = JsonTree.text(d, "name");
            if (name == null) return Optional.empty();
            out.add(new Entry(name, attributes, taints));
        }
        return Optional.of(out);
    }

    /** The devices of a slice as the API holds it: maps, one a device. */
    static List<?> devices(GenericKubernetesResource slice) {
        return slice == null ? List.of() : JsonTree.list(slice.getAdditionalProperties(), "spec", "devices");
    }

    /** Without {@code timeAdded}: the API server stamps it. */
    static Map<String, Object> deviceTaint(HealthTaint t) {
        Map<String, Object> taint = new LinkedHashMap<>();
        taint.put("key", t.key());
        taint.put("value", t.value());
        taint.put("effect", t.effect());
        return taint;
    }

    /** A taint as the comparison sees it; empty when it is not one this driver writes. */
    private static Optional<HealthTaint> taint(Object t) {
        String key = JsonTree.text(t, "key");
        String effect = JsonTree.text(t, "effect");
        if (key == null || effect == null) return Optional.empty();
        String value = JsonTree.text(t, "value");
        try {
            return Optional.of(new HealthTaint(key, value == null ? "" : value, effect));
        } catch (IllegalArgumentException notOurs) {
            return Optional.empty();
        }
    }

    private static Map<String, Object> attribute(AttributeValue v) {
        return switch (v) {
            case AttributeValue.Text t -> Map.of("string", t.value());
            case AttributeValue.Int n -> Map.of("int", n.value());
            case AttributeValue.Bool b -> Map.of("bool", b.value());
            case AttributeValue.Ints l -> Map.of("ints", l.values());
        };
    }

    private static Optional<AttributeValue> value(Object a) {
        if (!(a instanceof Map<?, ?>)) return Optional.empty();
        if (JsonTree.text(a, "string") instanceof String text && text.length() <= AttributeValue.Text.MAX_LENGTH) {
            return Optional.of(new AttributeValue.Text(text));
        }
        if (integral(JsonTree.at(a, "int")) instanceof Long n) return Optional.of(new AttributeValue.Int(n));
        if (JsonTree.at(a, "bool") instanceof Boolean b) return Optional.of(new AttributeValue.Bool(b));
        List<?> ints = JsonTree.list(a, "ints");
        List<Long> values = new ArrayList<>();
        for (Object i : ints) {
            if (!(integral(i) instanceof Long n)) return Optional.empty();
            values.add(n);
        }
        return values.isEmpty() ? Optional.empty() : Optional.of(new AttributeValue.Ints(values));
    }

    /** A whole number as Jackson parses one (an Integer or a Long), else null. */
    static Long integral(Object n) {
        return n instanceof Integer i ? Long.valueOf(i) : n instanceof Long l ? l : null;
    }

    private static String digest(String s) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
