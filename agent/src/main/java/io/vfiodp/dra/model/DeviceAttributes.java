package io.vfiodp.dra.model;

import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.DeviceProfile;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.ResourceName;
import java.util.Locale;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The attributes a device is published with. Kubernetes' standard ones, as
 * {@code k8s.io/dynamic-resource-allocation/deviceattribute} and NVIDIA's DRA driver name them:
 * {@code resource.kubernetes.io/pciBusID} (PCI functions only: KubeVirt takes a device with an
 * {@code mdevUUID} as an mdev anyway, but an mdev is not that PCI function),
 * {@code resource.kubernetes.io/pcieRoot} and {@code resource.kubernetes.io/numaNode}. The driver's
 * own (no domain): {@code kind}, {@code resourceName} (the device plugin's name for the same
 * devices), {@code vendorID}/{@code deviceID} ({@code 0x10de}, as NVIDIA's driver writes them),
 * {@code productName}, {@code iommuGroup}, {@code vgpuType}/{@code vgpuTypeID}, and for mdevs
 * {@code mdevUUID} (the key KubeVirt's virt-launcher reads) and {@code parentPCIBusID}.
 */
public final class DeviceAttributes {

    public static final String PCI_BUS_ID = "resource.kubernetes.io/pciBusID";
    public static final String PCIE_ROOT = "resource.kubernetes.io/pcieRoot";
    public static final String NUMA_NODE = "resource.kubernetes.io/numaNode";
    public static final String KIND = "kind";
    public static final String MDEV_UUID = "mdevUUID";

    private DeviceAttributes() {}

    /** With {@code numaNode} in the form {@code numa} says, or without it where the device has no NUMA node. */
    public static SortedMap<String, AttributeValue> of(ExposedDevice d, ResourceName resource, DeviceProfile p, NumaForm numa) {
        SortedMap<String, AttributeValue> a = new TreeMap<>();
        a.put(KIND, AttributeValue.of(p.kind().label()));
        fitting(resource.value()).ifPresent(v -> a.put("resourceName", AttributeValue.of(v)));
        a.put("vendorID", AttributeValue.of(String.format("0x%04x", p.vendor())));
        a.put("deviceID", AttributeValue.of(String.format("0x%04x", p.device())));
        p.productName().ifPresent(n -> a.put("productName", AttributeValue.of(truncated(n))));
        a.put("iommuGroup", AttributeValue.of(d.iommuGroup()));
        p.vgpuType().flatMap(DeviceAttributes::fitting).ifPresent(t -> a.put("vgpuType", AttributeValue.of(t)));
        p.vgpuTypeId().flatMap(DeviceAttributes::fitting).ifPresent(t -> a.put("vgpuTypeID", AttributeValue.of(t)));
        if (d.kind() == DeviceKind.MDEV) {
            a.put(MDEV_UUID, AttributeValue.of(d.id().toLowerCase(Locale.ROOT)));
            a.put("parentPCIBusID", AttributeValue.of(d.pciAddress().toString()));
        } else {
            a.put(PCI_BUS_ID, AttributeValue.of(d.pciAddress().toString()));
        }
        p.pcieRoot().ifPresent(r -> a.put(PCIE_ROOT, AttributeValue.of(r)));
        numa.attribute(d.numaNode()).ifPresent(v -> a.put(NUMA_NODE, v));
        return a;
    }

    /** A value the API can store whole; names that would have to be cut are left out rather than published wrong. */
    private static Optional<String> fitting(String v) {
        return v.length() <= AttributeValue.Text.MAX_LENGTH ? Optional.of(v) : Optional.empty();
    }

    /** A model name only describes; a cut one still does. */
    private static String truncated(String v) {
        return v.length() <= AttributeValue.Text.MAX_LENGTH ? v : v.substring(0, AttributeValue.Text.MAX_LENGTH);
    }
}
