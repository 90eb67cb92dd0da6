package io.vfiodp.dra.slices;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.vfiodp.dra.model.AttributeValue;
import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
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
    static ResourceSlice probe(String driver, String node, HealthTaint taint) {
        ResourceSlice s = slice(driver, node, 0, 1, 0, List.of(new Entry("taint-probe", new TreeMap<>(), List.of(taint))), Optional.empty());
        s.getMetadata().setName(sliceName(node, driver, "taint-probe"));
        return s;
    }

    /** Slice {@code index} of {@code count}, owned by the Node when its UID is known, so that it goes when the Node does. */
    public static ResourceSlice slice(String driver, String node, int index, int count, long generation, List<Entry> entries,
            Optional<String> nodeUid) {
        List<Device> devices = new ArrayList<>();
        for (Entry e : entries) {
            Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
            e.attributes().forEach((k, v) -> attributes.put(k, attribute(v)));
            Device d = new Device();
            d.setName(e.name());
            d.setAttributes(attributes);
            if (e.tainted()) d.setTaints(e.taints().stream().map(SliceLayout::deviceTaint).toList());
            devices.add(d);
        }
        ResourceSliceBuilder b = new ResourceSliceBuilder()
                .withNewMetadata().withName(sliceName(node, driver, index)).endMetadata()
                .withNewSpec()
                    .withDriver(driver)
                    .withNodeName(node)
                    .withNewPool().withName(node).withGeneration(generation).withResourceSliceCount((long) count).endPool()
                    .withDevices(devices)
                .endSpec();
        nodeUid.ifPresent(uid -> b.editMetadata().withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node")
                .withName(node).withUid(uid).withController(true).build()).endMetadata());
        return b.build();
    }

    /** What a slice from the API holds, in the comparison's terms; empty when an attribute is of a kind this driver never writes. */
    public static Optional<List<Entry>> entries(ResourceSlice slice) {
        List<Entry> out = new ArrayList<>();
        List<Device> devices = slice.getSpec() == null || slice.getSpec().getDevices() == null ? List.of() : slice.getSpec().getDevices();
        for (Device d : devices) {
            SortedMap<String, AttributeValue> attributes = new TreeMap<>();
            if (d.getAttributes() != null) {
                for (Map.Entry<String, DeviceAttribute> a : d.getAttributes().entrySet()) {
                    Optional<AttributeValue> v = value(a.getValue());
                    if (v.isEmpty()) return Optional.empty();
                    attributes.put(a.getKey(), v.get());
                }
            }
            List<HealthTaint> taints = new ArrayList<>();
            for (DeviceTaint t : d.getTaints() == null ? List.<DeviceTaint>of() : d.getTaints()) {
                Optional<HealthTaint> taint = taint(t);
                if (taint.isEmpty()) return Optional.empty();
                taints.add(taint.get());
            }
            out.add(new Entry(d.getName(), attributes, taints));
        }
        return Optional.of(out);
    }

    /** Without {@code timeAdded}: the API server stamps it. */
    static DeviceTaint deviceTaint(HealthTaint t) {
        DeviceTaint taint = new DeviceTaint();
        taint.setKey(t.key());
        taint.setValue(t.value());
        taint.setEffect(t.effect());
        return taint;
    }

    /** A taint as the comparison sees it; empty when it is not one this driver writes. */
    private static Optional<HealthTaint> taint(DeviceTaint t) {
        if (t == null || t.getKey() == null || t.getEffect() == null) return Optional.empty();
        try {
            return Optional.of(new HealthTaint(t.getKey(), t.getValue() == null ? "" : t.getValue(), t.getEffect()));
        } catch (IllegalArgumentException notOurs) {
            return Optional.empty();
        }
    }

    private static DeviceAttribute attribute(AttributeValue v) {
        DeviceAttribute a = new DeviceAttribute();
        switch (v) {
            case AttributeValue.Text t -> a.setString(t.value());
            case AttributeValue.Int n -> a.setInt(n.value());
            case AttributeValue.Bool b -> a.setBool(b.value());
            case AttributeValue.Ints l -> a.setInts(l.values());
        }
        return a;
    }

    private static Optional<AttributeValue> value(DeviceAttribute a) {
        if (a == null) return Optional.empty();
        if (a.getString() != null && a.getString().length() <= AttributeValue.Text.MAX_LENGTH) return Optional.of(new AttributeValue.Text(a.getString()));
        if (a.getInt() != null) return Optional.of(new AttributeValue.Int(a.getInt()));
        if (a.getBool() != null) return Optional.of(new AttributeValue.Bool(a.getBool()));
        if (a.getInts() != null && !a.getInts().isEmpty() && !a.getInts().contains(null)) return Optional.of(new AttributeValue.Ints(a.getInts()));
        return Optional.empty();
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
