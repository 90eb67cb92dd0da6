package io.vfiodp.plugin;

import io.vfiodp.node.TargetState;
import io.vfiodp.host.DevNodes;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.KubeVirtEnv;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.NUMANode;
import io.vfiodp.proto.deviceplugin.v1beta1.TopologyInfo;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything a resource's gRPC handlers may read, frozen: its devices (with health), the
 * {@code /dev} nodes the host showed, and which resource owns every other device ID of the node
 * (to tell the kubelet "that ID belongs to another resource" rather than just "unknown").
 * Built only by the reconcile loop; handlers see it through one volatile reference.
 */
public final class ResourceView {

    private final ResourceName name;
    private final DeviceKind kind;
    private final Map<String, ExposedDevice> devices;
    private final DevNodes devNodes;
    private final Map<String, ResourceName> owners;
    private final ListAndWatchResponse listAndWatch;
    // Allocate's variable name, once per view rather than per call (upper-casing and two replaces).
    private final String envVariable;

    public ResourceView(DesiredResource resource, DevNodes devNodes, Map<String, ResourceName> owners) {
        this.name = resource.name();
        this.kind = resource.kind();
        Map<String, ExposedDevice> byId = new LinkedHashMap<>();
        for (ExposedDevice d : resource.devices()) byId.put(d.id(), d);
        this.devices = Collections.unmodifiableMap(byId);
        this.devNodes = Objects.requireNonNull(devNodes, "devNodes");
        this.owners = Map.copyOf(owners);
        this.listAndWatch = wireList(resource);
        this.envVariable = KubeVirtEnv.variableName(kind, name);
    }

    /** A view of every resource of {@code target}. */
    public static SortedMap<ResourceName, ResourceView> allOf(TargetState target) {
        Map<String, ResourceName> owners = new HashMap<>();
        for (DesiredResource r : target.plugins().resources().values()) {
            for (ExposedDevice d : r.devices()) owners.put(d.id(), r.name());
        }
        Map<String, ResourceName> frozenOwners = Map.copyOf(owners);
        SortedMap<ResourceName, ResourceView> views = new TreeMap<>();
        for (DesiredResource r : target.plugins().resources().values()) {
            views.put(r.name(), new ResourceView(r, target.devNodes(), frozenOwners));
        }
        return views;
    }

    private static ListAndWatchResponse wireList(DesiredResource resource) {
        ListAndWatchResponse.Builder b = ListAndWatchResponse.newBuilder();
        for (ExposedDevice d : resource.devices()) {
            Device.Builder dev = Device.newBuilder().setID(d.id()).setHealth(d.health().wireValue());
            if (d.numaNode() >= 0) {
                dev.setTopology(TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(d.numaNode())));
            }
            b.addDevices(dev);
        }
        return b.build();
    }

    public ResourceName name() {
        return name;
    }

    public DeviceKind kind() {
        return kind;
    }

    /** Devices by ID, in the order policy listed them. */
    public Map<String, ExposedDevice> devices() {
        return devices;
    }

    public Optional<ExposedDevice> device(String id) {
        return Optional.ofNullable(devices.get(id));
    }

    public DevNodes devNodes() {
        return devNodes;
    }

    /** The resource serving {@code id}, if any resource on this node does. */
    public Optional<ResourceName> ownerOf(String id) {
        return Optional.ofNullable(owners.get(id));
    }

    /** The variable virt-launcher reads this resource's device IDs from ({@link KubeVirtEnv#variableName}). */
    public String envVariable() {
        return envVariable;
    }

    /** The message ListAndWatch sends for this view. */
    public ListAndWatchResponse listAndWatchResponse() {
        return listAndWatch;
    }
}
