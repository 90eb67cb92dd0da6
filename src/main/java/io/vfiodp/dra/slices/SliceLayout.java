package io.vfiodp.dra.slices;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.vfiodp.dra.model.AttributeValue;
import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How this node's pool is laid out in ResourceSlices: its healthy devices in name order, at most
 * {@value #MAX_DEVICES} a slice ({@code ResourceSliceMaxDevices}; no taints, counters or list
 * attributes, which would lower it to 64), slices named {@code <node>-<driver>-<index>}.
 *
 * <p>An unhealthy device leaves the slice rather than carrying a taint: a taint needs the
 * DRADeviceTaints feature, without which the API server drops it and the device would stay
 * allocatable; and a NoExecute taint would evict a running VM on a health flap, where the device
 * plugin side only stops new allocations. Leaving the slice does the latter on every cluster.
 */
public final class SliceLayout {

    public static final int MAX_DEVICES = 128;
    private static final int MAX_NAME = 253;

    private SliceLayout() {}

    /** A device entry as the comparison sees it: name and attributes. */
    public record Entry(String name, SortedMap<String, AttributeValue> attributes) {}

    /** The entries of each slice, slice by slice; none when no device is healthy. */
    public static List<List<Entry>> of(DriverView view) {
        List<List<Entry>> slices = new ArrayList<>();
        List<Entry> current = new ArrayList<>();
        for (DraDevice d : view.devices().values()) {
            if (!d.healthy()) continue;
            if (current.size() == MAX_DEVICES) {
                slices.add(current);
                current = new ArrayList<>();
            }
            current.add(new Entry(d.name(), d.attributes()));
        }
        if (!current.isEmpty()) slices.add(current);
        return slices;
    }

    public static String sliceName(String node, String driver, int index) {
        String name = node + "-" + driver + "-" + index;
        if (name.length() <= MAX_NAME) return name;
        return "vfio-" + digest(node + "/" + driver) + "-" + index;
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
            out.add(new Entry(d.getName(), attributes));
        }
        return Optional.of(out);
    }

    private static DeviceAttribute attribute(AttributeValue v) {
        DeviceAttribute a = new DeviceAttribute();
        switch (v) {
            case AttributeValue.Text t -> a.setString(t.value());
            case AttributeValue.Int n -> a.setInt(n.value());
            case AttributeValue.Bool b -> a.setBool(b.value());
        }
        return a;
    }

    private static Optional<AttributeValue> value(DeviceAttribute a) {
        if (a == null) return Optional.empty();
        if (a.getString() != null && a.getString().length() <= AttributeValue.Text.MAX_LENGTH) return Optional.of(new AttributeValue.Text(a.getString()));
        if (a.getInt() != null) return Optional.of(new AttributeValue.Int(a.getInt()));
        if (a.getBool() != null) return Optional.of(new AttributeValue.Bool(a.getBool()));
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
