package io.vfiodp.policy;

import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The usable entries of a {@link PermittedHostDevices}, by selector. A malformed entry is left
 * out with an error naming it, and everything else still works. Of two entries with the same
 * selector, an entry without {@code externalResourceProvider: true} always wins, with an error
 * naming both: KubeVirt's virt-handler serves every selector such an entry names
 * ({@code device_controller.go} builds its map from those entries alone), so serving it too
 * would make one device allocatable under two names. Otherwise the later one wins, with a
 * warning, as in virt-handler's map. One resource name cannot be both PCI and mediated, so a
 * mediated entry reusing a PCI entry's name is left out.
 */
public final class PermittedSelectors {

    private static final Pattern PCI_SELECTOR = Pattern.compile("[0-9a-fA-F]{4}:[0-9a-fA-F]{4}");

    /** A usable entry: where it was written, its selector as matched, and its resource. */
    record Rule(String label, String selector, ResourceName resourceName, boolean external) {
        String describe() {
            return label + " (" + selector + " → " + resourceName + ")";
        }
    }

    private final Map<String, Rule> pci;
    private final Map<String, Rule> mdev;
    private final List<PolicyProblem> problems;

    private PermittedSelectors(Map<String, Rule> pci, Map<String, Rule> mdev, List<PolicyProblem> problems) {
        this.pci = Collections.unmodifiableMap(pci);
        this.mdev = Collections.unmodifiableMap(mdev);
        this.problems = List.copyOf(problems);
    }

    static PermittedSelectors of(PermittedHostDevices config) {
        List<PolicyProblem> problems = new ArrayList<>();
        Map<String, Rule> pci = new LinkedHashMap<>();
        List<PciHostDevice> pciEntries = config.pciHostDevices();
        for (int i = 0; i < pciEntries.size(); i++) {
            PciHostDevice e = pciEntries.get(i);
            String label = "pciHostDevices[" + i + "]";
            String where = label + " (pciVendorSelector '" + e.pciVendorSelector() + "', resourceName '" + e.resourceName() + "')";
            String selector = e.pciVendorSelector().strip();
            if (!PCI_SELECTOR.matcher(selector).matches()) {
                problems.add(PolicyProblem.error(where + " skipped: pciVendorSelector must be VVVV:DDDD, the vendor and device id in hex (e.g. 10DE:1EB8)"));
                continue;
            }
            Optional<ResourceName> name = resourceName(e.resourceName(), where, problems);
            if (name.isEmpty()) continue;
            add(pci, new Rule(label, selector.toLowerCase(Locale.ROOT), name.get(), e.externalResourceProvider()), problems);
        }
        Map<String, Rule> mdev = new LinkedHashMap<>();
        List<MediatedHostDevice> mdevEntries = config.mediatedDevices();
        for (int i = 0; i < mdevEntries.size(); i++) {
            MediatedHostDevice e = mdevEntries.get(i);
            String label = "mediatedDevices[" + i + "]";
            String where = label + " (mdevNameSelector '" + e.mdevNameSelector() + "', resourceName '" + e.resourceName() + "')";
            // the selector gets the same spaces-to-'_' as the type name, so "GRID T4-1Q" and
            // "GRID_T4-1Q" select the same type
            String selector = mdevSelectorForm(e.mdevNameSelector()).strip();
            if (selector.isEmpty()) {
                problems.add(PolicyProblem.error(where + " skipped: mdevNameSelector is empty"));
                continue;
            }
            if (selector.chars().anyMatch(Character::isWhitespace)) {
                problems.add(PolicyProblem.error(where + " skipped: mdevNameSelector contains a tab or line break, which never"
                        + " matches a type name (write '" + selector.replaceAll("\\s+", "_") + "')"));
                continue;
            }
            Optional<ResourceName> name = resourceName(e.resourceName(), where, problems);
            if (name.isEmpty()) continue;
            add(mdev, new Rule(label, selector, name.get(), e.externalResourceProvider()), problems);
        }
        rejectMixedKinds(pci, mdev, problems);
        rejectSharedVariables(pci, mdev, problems);
        return new PermittedSelectors(pci, mdev, problems);
    }

    private static Optional<ResourceName> resourceName(String value, String where, List<PolicyProblem> problems) {
        Optional<String> problem = ResourceName.problem(value.strip());
        if (problem.isPresent()) {
            problems.add(PolicyProblem.error(where + " skipped: " + problem.get()));
            return Optional.empty();
        }
        return Optional.of(ResourceName.of(value.strip()));
    }

    private static void add(Map<String, Rule> rules, Rule rule, List<PolicyProblem> problems) {
        Rule earlier = rules.get(rule.selector());
        if (earlier == null) {
            rules.put(rule.selector(), rule);
        } else if (earlier.external() != rule.external()) {
            Rule kubevirt = earlier.external() ? rule : earlier;
            Rule ours = earlier.external() ? earlier : rule;
            problems.add(PolicyProblem.error(ours.describe() + " skipped: " + kubevirt.describe()
                    + " names the same selector without externalResourceProvider: true, so KubeVirt's virt-handler serves"
                    + " those devices; serving them too would make one device allocatable under two names (remove one of the"
                    + " two entries)"));
            rules.remove(rule.selector());
            rules.put(rule.selector(), kubevirt);
        } else {
            problems.add(PolicyProblem.warning(rule.label() + " repeats the selector '" + rule.selector() + "' of "
                    + earlier.describe() + "; the later entry wins: " + rule.describe()));
            rules.remove(rule.selector());
            rules.put(rule.selector(), rule);
        }
    }

    /** Only the entries we serve matter: virt-handler serves the others under its own rules. */
    private static void rejectMixedKinds(Map<String, Rule> pci, Map<String, Rule> mdev, List<PolicyProblem> problems) {
        Map<ResourceName, Rule> pciNames = new HashMap<>();
        for (Rule r : pci.values()) {
            if (r.external()) pciNames.putIfAbsent(r.resourceName(), r);
        }
        mdev.values().removeIf(r -> {
            Rule clash = r.external() ? pciNames.get(r.resourceName()) : null;
            if (clash == null) return false;
            problems.add(PolicyProblem.error(r.label() + " (mdevNameSelector '" + r.selector() + "') skipped: resourceName "
                    + r.resourceName() + " is already a PCI resource (" + clash.label() + "); one resource cannot mix PCI"
                    + " and mediated devices, KubeVirt reads one env var prefix per resource"));
            return true;
        });
    }

    /**
     * virt-launcher finds a resource's devices by a variable named after it, upper-cased with
     * {@code /} and {@code .} as {@code _}: {@code nvidia.com/t4} and {@code nvidia.com/T4}, or
     * {@code a.b} and {@code a_b}, would share one, and a VM asking for one would get the other's
     * devices. Of the names we serve, the first to take a variable keeps it.
     */
    private static void rejectSharedVariables(Map<String, Rule> pci, Map<String, Rule> mdev, List<PolicyProblem> problems) {
        Map<String, Rule> byVariable = new HashMap<>();
        for (Map<String, Rule> rules : List.of(pci, mdev)) {
            rules.values().removeIf(r -> {
                if (!r.external()) return false;
                String variable = KubeVirtEnv.variableName(DeviceKind.PCI, r.resourceName());
                Rule first = byVariable.putIfAbsent(variable, r);
                if (first == null || first.resourceName().equals(r.resourceName())) return false;
                problems.add(PolicyProblem.error(r.describe() + " skipped: resourceName " + r.resourceName()
                        + " reads from the same variable as " + first.resourceName() + " of " + first.label() + " ("
                        + variable.substring(DeviceKind.PCI.envPrefix().length() + 1)
                        + " after PCI_RESOURCE_ or MDEV_PCI_RESOURCE_): KubeVirt upper-cases a resource name and turns '/' and"
                        + " '.' into '_', so virt-launcher could not tell their devices apart"));
                return true;
            });
        }
    }

    /** The entry whose selector is this function's vendor:device ({@code 10de:1eb8}). */
    Optional<Rule> forPci(String vendorDevice) {
        return Optional.ofNullable(pci.get(vendorDevice));
    }

    /** The entry whose selector is this mdev type name with every space replaced by {@code _}. */
    Optional<Rule> forMdevType(String typeName) {
        return Optional.ofNullable(mdev.get(mdevSelectorForm(typeName)));
    }

    /**
     * An mdev type name (or selector) as KubeVirt compares them: every space replaced by
     * {@code _} (KubeVirt's removeSelectorSpaces), {@code GRID T4-1Q} → {@code GRID_T4-1Q}.
     */
    public static String mdevSelectorForm(String typeName) {
        return typeName.replace(' ', '_');
    }

    List<PolicyProblem> problems() {
        return problems;
    }
}
