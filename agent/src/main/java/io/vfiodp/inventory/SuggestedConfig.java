package io.vfiodp.inventory;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.MdevParent;
import io.vfiodp.host.MdevType;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.Decision;
import io.vfiodp.policy.DefaultNames;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.PermittedSelectors;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.PolicyResult;
import io.vfiodp.policy.ResourceName;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A {@code permittedHostDevices} block that, fed back through {@code --config}, exposes what
 * default mode exposes on this host, under the same names: one {@code pciHostDevices} entry per
 * vendor:device exposed, one {@code mediatedDevices} entry per mdev type seen on an NVIDIA
 * parent. Devices default mode leaves out but a configuration could permit (another vendor's
 * function on vfio-pci, another vendor's mdev types) follow as commented-out entries.
 */
public final class SuggestedConfig {

    private static final String PLACEHOLDER_DOMAIN = "example.com";

    private SuggestedConfig() {}

    private record Entry(String selectorKey, String selector, String resourceName, List<String> comments) {}

    /** @param defaults the policy's result for this snapshot in default mode (no configuration) */
    public static String yaml(HostSnapshot snapshot, PolicyResult defaults, PciIds pciIds) {
        List<Entry> pci = new ArrayList<>();
        List<Entry> pciCommented = new ArrayList<>();
        pciEntries(snapshot, defaults, pciIds, pci, pciCommented);
        List<Entry> mdev = new ArrayList<>();
        List<Entry> mdevCommented = new ArrayList<>();
        mdevEntries(snapshot, defaults, pciIds, mdev, mdevCommented);

        StringBuilder out = new StringBuilder();
        out.append("# Suggested by 'vfio-device-plugin inventory --suggest-config': with --config this exposes\n");
        out.append("# what the default policy exposes on this host, under the same resource names.\n");
        out.append("permittedHostDevices:\n");
        section(out, "pciHostDevices", "pciVendorSelector", pci, pciCommented);
        section(out, "mediatedDevices", "mdevNameSelector", mdev, mdevCommented);
        return out.toString();
    }

    private static void pciEntries(HostSnapshot snapshot, PolicyResult defaults, PciIds pciIds, List<Entry> entries,
            List<Entry> commented) {
        Map<String, SortedSet<ResourceName>> names = new TreeMap<>();
        Map<String, SortedSet<String>> devices = new TreeMap<>();
        Map<String, PciFunction> example = new TreeMap<>();
        for (DesiredResource r : defaults.desiredState().resources().values()) {
            if (r.kind() != DeviceKind.PCI) continue;
            for (ExposedDevice d : r.devices()) {
                PciFunction f = snapshot.functions().get(d.pciAddress());
                names.computeIfAbsent(f.vendorDevice(), k -> new TreeSet<>()).add(r.name());
                devices.computeIfAbsent(f.vendorDevice(), k -> new TreeSet<>()).add(d.id());
                example.putIfAbsent(f.vendorDevice(), f);
            }
        }
        names.forEach((vendorDevice, resources) -> {
            PciFunction f = example.get(vendorDevice);
            List<String> comments = new ArrayList<>();
            comments.add(model(f, pciIds) + ": " + String.join(", ", devices.get(vendorDevice)));
            if (resources.size() > 1) {
                // SR-IOV vGPU VFs of one GPU model share a vendor:device whatever vGPU type they carry
                comments.add("default mode splits these over " + resources.stream().map(ResourceName::value).toList()
                        + "; a pciVendorSelector cannot tell them apart, so all go to the first");
            }
            entries.add(new Entry(vendorDevice, selector(f), resources.first().value(), comments));
        });

        Map<String, PciFunction> permittable = new TreeMap<>();
        Map<String, SortedSet<String>> permittableDevices = new TreeMap<>();
        defaults.functions().forEach((address, decision) -> {
            PciFunction f = snapshot.functions().get(address);
            if (!(decision instanceof Decision.Skipped) || names.containsKey(f.vendorDevice())) return;
            if (PolicyEngine.unusable(f).isPresent()) return;
            permittable.putIfAbsent(f.vendorDevice(), f);
            permittableDevices.computeIfAbsent(f.vendorDevice(), k -> new TreeSet<>()).add(address.toString());
        });
        permittable.forEach((vendorDevice, f) -> {
            String domain = f.vendor() == PciFunction.VENDOR_NVIDIA ? DefaultNames.DOMAIN : PLACEHOLDER_DOMAIN;
            String part = pciIds.deviceName(f.vendor(), f.device()).map(DefaultNames::fromModelName)
                    .flatMap(DefaultNames::repair).map(DefaultNames.Repaired::namePart)
                    .orElse(String.format("%04x_%04x", f.vendor(), f.device()));
            commented.add(new Entry(vendorDevice, selector(f), domain + "/" + part, List.of(
                    model(f, pciIds) + " on " + f.driver().orElse("?") + ": " + String.join(", ", permittableDevices.get(vendorDevice)),
                    "not exposed by default; uncomment to permit it" + (domain.equals(PLACEHOLDER_DOMAIN) ? " (and pick your own domain)" : ""))));
        });
    }

    private static void mdevEntries(HostSnapshot snapshot, PolicyResult defaults, PciIds pciIds, List<Entry> entries,
            List<Entry> commented) {
        Map<String, String> names = new TreeMap<>();
        Map<String, SortedSet<String>> instances = new TreeMap<>();
        defaults.mdevs().forEach((uuid, decision) -> {
            if (decision instanceof Decision.Exposed e) {
                String selector = PermittedSelectors.mdevSelectorForm(snapshot.mdevs().get(uuid).typeName());
                names.putIfAbsent(selector, e.resource().value());
                instances.computeIfAbsent(selector, k -> new TreeSet<>()).add(uuid);
            }
        });
        Map<String, String> offered = new TreeMap<>();
        Map<String, String> otherVendor = new TreeMap<>();
        for (MdevParent parent : snapshot.mdevParents().values()) {
            boolean nvidia = snapshot.function(parent.address()).map(f -> f.vendor() == PciFunction.VENDOR_NVIDIA).orElse(false);
            for (MdevType t : parent.types()) {
                String selector = PermittedSelectors.mdevSelectorForm(t.displayName());
                (nvidia ? offered : otherVendor).putIfAbsent(selector, t.id());
            }
        }
        for (MdevInstance m : snapshot.mdevs().values()) {
            String selector = PermittedSelectors.mdevSelectorForm(m.typeName());
            if (!names.containsKey(selector)) otherVendor.putIfAbsent(selector, m.typeId());
        }
        offered.forEach((selector, typeId) -> names.putIfAbsent(selector, DefaultNames.DOMAIN + "/" + typeNamePart(selector, typeId)));
        names.forEach((selector, resource) -> entries.add(new Entry(selector, selector, resource,
                instances.containsKey(selector)
                        ? List.of("instances: " + String.join(", ", instances.get(selector)))
                        : List.of("type offered, no instance yet"))));
        otherVendor.forEach((selector, typeId) -> {
            if (names.containsKey(selector)) return;
            commented.add(new Entry(selector, selector, PLACEHOLDER_DOMAIN + "/" + typeNamePart(selector, typeId), List.of(
                    "type " + typeId + " of a non-NVIDIA parent: not exposed by default; uncomment to permit it (and pick your own domain)")));
        });
    }

    private static String typeNamePart(String selector, String typeId) {
        return DefaultNames.repair(DefaultNames.fromTypeName(selector)).or(() -> DefaultNames.repair(typeId))
                .map(DefaultNames.Repaired::namePart).orElse("MDEV_TYPE");
    }

    private static String model(PciFunction f, PciIds pciIds) {
        return pciIds.deviceName(f.vendor(), f.device()).orElse("unknown model " + f.vendorDevice());
    }

    private static String selector(PciFunction f) {
        return f.vendorDevice().toUpperCase(Locale.ROOT);
    }

    private static void section(StringBuilder out, String list, String selectorField, List<Entry> entries, List<Entry> commented) {
        if (entries.isEmpty() && commented.isEmpty()) {
            out.append("  ").append(list).append(": []\n");
            return;
        }
        // with only commented-out entries the list is null, which KubeVirt and we read as empty
        out.append("  ").append(list).append(":\n");
        for (Entry e : entries) {
            for (String c : e.comments()) out.append("    # ").append(oneLine(c)).append('\n');
            out.append("    - ").append(selectorField).append(": ").append(quoted(e.selector())).append('\n');
            out.append("      resourceName: ").append(quoted(e.resourceName())).append('\n');
            out.append("      externalResourceProvider: true\n");
        }
        for (Entry e : commented) {
            for (String c : e.comments()) out.append("    # ").append(oneLine(c)).append('\n');
            out.append("    # - ").append(selectorField).append(": ").append(quoted(e.selector())).append('\n');
            out.append("    #   resourceName: ").append(quoted(e.resourceName())).append('\n');
            out.append("    #   externalResourceProvider: true\n");
        }
    }

    private static String oneLine(String s) {
        return s.replace('\n', ' ').replace('\r', ' ');
    }

    static String quoted(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\x%02x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
