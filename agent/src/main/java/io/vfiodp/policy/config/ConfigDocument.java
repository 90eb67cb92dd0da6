package io.vfiodp.policy.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code --config} document as Jackson reads it, turned into the records the rest of the plugin
 * uses. Plain field classes, not the records: Jackson buffers unknown properties of a record
 * (creator-based) and replays them without their location, and the warnings need the line.
 */
final class ConfigDocument {

    private ConfigDocument() {}

    @SuppressWarnings("unused")
    static final class Document {
        public Lists permittedHostDevices;
        public MdevBlock mediatedDevicesConfiguration;
    }

    @SuppressWarnings("unused")
    @JsonIgnoreProperties({"usb"})
    static final class Lists {
        public List<PciEntry> pciHostDevices;
        public List<MdevEntry> mediatedDevices;

        PermittedHostDevices toRecord() {
            return new PermittedHostDevices(
                    pciHostDevices == null ? null : pciHostDevices.stream().map(e -> e == null ? null : e.toRecord()).toList(),
                    mediatedDevices == null ? null : mediatedDevices.stream().map(e -> e == null ? null : e.toRecord()).toList());
        }
    }

    @SuppressWarnings("unused")
    static final class PciEntry {
        public String pciVendorSelector;
        public String resourceName;
        public boolean externalResourceProvider;

        PciHostDevice toRecord() {
            return new PciHostDevice(pciVendorSelector, resourceName, externalResourceProvider);
        }
    }

    @SuppressWarnings("unused")
    static final class MdevEntry {
        public String mdevNameSelector;
        public String resourceName;
        public boolean externalResourceProvider;

        MediatedHostDevice toRecord() {
            return new MediatedHostDevice(mdevNameSelector, resourceName, externalResourceProvider);
        }
    }

    @SuppressWarnings("unused")
    static final class MdevBlock {
        public List<String> mediatedDeviceTypes;
        public List<String> mediatedDevicesTypes;
        public List<NodeEntry> nodeMediatedDeviceTypes;
        public Boolean enabled;

        MediatedDevicesConfig toRecord() {
            return new MediatedDevicesConfig(mediatedDeviceTypes, mediatedDevicesTypes,
                    nodeMediatedDeviceTypes == null ? null : nodeMediatedDeviceTypes.stream().map(e -> e == null ? null : e.toRecord()).toList(),
                    Optional.ofNullable(enabled));
        }
    }

    @SuppressWarnings("unused")
    static final class NodeEntry {
        public Map<String, String> nodeSelector;
        public List<String> mediatedDeviceTypes;
        public List<String> mediatedDevicesTypes;

        MediatedDevicesConfig.NodeTypes toRecord() {
            return new MediatedDevicesConfig.NodeTypes(nodeSelector, mediatedDeviceTypes, mediatedDevicesTypes);
        }
    }
}
