package io.vfiodp.host.scan;

import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.MdevParent;
import io.vfiodp.host.MdevType;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.ScanProblem;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Mediated devices: the types a parent function offers ({@code mdev_supported_types/<id>}) and
 * the created instances ({@code bus/mdev/devices/<uuid>}). An unreadable type or instance is
 * left out with a problem; its siblings are unaffected.
 */
final class MdevReader {

    private static final int MAX_GROUP = 1 << 20;

    private final ConfinedTree sys;

    MdevReader(ConfinedTree sys) {
        this.sys = sys;
    }

    /** The parent's types, sorted by id; empty when the types directory is unreadable. */
    Optional<MdevParent> readParent(ScannedFunction.Found parent, List<ScanProblem> problems) {
        String shownTypes = parent.shownAs() + "/mdev_supported_types";
        String[] ids;
        String typesDir;
        try {
            typesDir = sys.directory(parent.dir(), "mdev_supported_types", shownTypes);
            ids = sys.list(typesDir);
        } catch (EntryUnreadable e) {
            problems.add(e.toProblem());
            return Optional.empty();
        }
        List<MdevType> types = new ArrayList<>();
        for (String id : Arrays.stream(ids).sorted().toList()) {
            String shown = shownTypes + "/" + id;
            try {
                types.add(readType(sys.directory(typesDir, id, shown), id, shown));
            } catch (EntryUnreadable e) {
                problems.add(e.toProblem());
            }
        }
        return Optional.of(new MdevParent(parent.function().address(), types));
    }

    private MdevType readType(String typeDir, String id, String shown) throws EntryUnreadable {
        Set<String> names = new HashSet<>(List.of(sys.list(typeDir)));
        Optional<String> name = names.contains("name")
                ? Optional.of(sys.attribute(typeDir, "name", shown + "/name")) : Optional.empty();
        int available = SysfsValues.decimal(sys.attribute(typeDir, "available_instances", shown + "/available_instances"),
                0, Integer.MAX_VALUE, shown + "/available_instances");
        String deviceApi = sys.attribute(typeDir, "device_api", shown + "/device_api");
        Optional<String> description = Optional.empty();
        if (names.contains("description")) {
            String text = sys.rawAttribute(typeDir, "description", shown + "/description").strip();
            if (!text.isEmpty()) description = Optional.of(text);
        }
        return new MdevType(id, name, available, deviceApi, description);
    }

    /** What {@code bus/mdev/devices} holds: nothing (no mdev bus), an unreadable entry, or instances. */
    sealed interface Listing {
        record Absent() implements Listing {}

        record Unreadable(ScanProblem problem) implements Listing {}

        /** @param dir the real directory; {@code uuids} its entries, sorted */
        record Listed(String dir, List<String> uuids) implements Listing {
            public Listed {
                uuids = List.copyOf(uuids);
            }
        }
    }

    /** One instance as read: the instance and the real directory of its IOMMU group, or why not. */
    sealed interface InstanceRead {
        record Read(MdevInstance instance, String groupDir) implements InstanceRead {}

        record Failed(ScanProblem problem) implements InstanceRead {}
    }

    Listing list() {
        try {
            String devicesDir = sys.walk("bus/mdev/devices");
            return new Listing.Listed(devicesDir, Arrays.stream(sys.list(devicesDir)).sorted().toList());
        } catch (EntryUnreadable e) {
            return e.isMissing() ? new Listing.Absent() : new Listing.Unreadable(e.toProblem());
        }
    }

    InstanceRead readInstance(String devicesDir, String uuid) {
        String shown = "bus/mdev/devices/" + uuid;
        try {
            if (!MdevInstance.isUuid(uuid)) throw new EntryUnreadable(shown, "not a lower-case mdev UUID");
            String dir = sys.linkedDirectory(devicesDir, uuid, shown);
            if (!ConfinedTree.fileName(dir).equals(uuid)) {
                throw new EntryUnreadable(shown, "link leads to " + sys.shown(dir) + ", not to this mdev");
            }
            PciAddress parent = PciAddress.tryParse(ConfinedTree.fileName(ConfinedTree.parent(dir)))
                    .orElseThrow(() -> new EntryUnreadable(shown, "not below a PCI function (" + sys.shown(dir) + ")"));

            String typeDir = sys.linkedDirectory(dir, "mdev_type", shown + "/mdev_type");
            if (!ConfinedTree.fileName(ConfinedTree.parent(typeDir)).equals("mdev_supported_types")) {
                throw new EntryUnreadable(shown + "/mdev_type", "link leads to " + sys.shown(typeDir) + ", not to an mdev type");
            }
            String typeId = ConfinedTree.fileName(typeDir);
            String typeShown = sys.shown(typeDir) + "/name";
            Optional<String> rawName = sys.optionalRawAttribute(typeDir, "name", typeShown);
            String typeName = typeId;
            if (rawName.isPresent()) {
                typeName = rawName.get().strip();
                if (typeName.isEmpty()) throw new EntryUnreadable(typeShown, "empty");
            }

            String groupDir = sys.linkedDirectory(dir, "iommu_group", shown + "/iommu_group");
            if (!ConfinedTree.fileName(ConfinedTree.parent(groupDir)).equals("iommu_groups")) {
                throw new EntryUnreadable(shown + "/iommu_group", "link leads to " + sys.shown(groupDir) + ", not into 'iommu_groups'");
            }
            int group = SysfsValues.decimal(ConfinedTree.fileName(groupDir), 0, MAX_GROUP, shown + "/iommu_group");
            return new InstanceRead.Read(new MdevInstance(uuid, typeId, typeName, parent, group), groupDir);
        } catch (EntryUnreadable e) {
            return new InstanceRead.Failed(e.toProblem());
        }
    }
}
