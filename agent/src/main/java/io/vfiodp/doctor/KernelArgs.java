package io.vfiodp.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** The kernel command line ({@code /proc/cmdline}) as words, with the ones that decide IOMMU and VFIO behaviour picked out. */
record KernelArgs(List<String> words) {

    /** Parameters whose value or presence the checks read; the {@code iommu.cmdline} line shows them. */
    private static final Set<String> RELEVANT = Set.of("intel_iommu", "amd_iommu", "iommu", "iommu.passthrough", "iommu.strict",
            "intremap", "nointremap", "vfio-pci.ids", "vfio_pci.ids", "vfio_iommu_type1.allow_unsafe_interrupts",
            "iommufd.allow_unsafe_interrupts", "pcie_acs_override");

    KernelArgs {
        words = List.copyOf(words);
    }

    static KernelArgs parse(String cmdline) {
        List<String> words = new ArrayList<>();
        for (String w : cmdline.strip().split("\\s+")) {
            if (!w.isEmpty()) words.add(w);
        }
        return new KernelArgs(words);
    }

    /** The words that matter here, in command-line order. */
    List<String> relevant() {
        return words.stream().filter(w -> RELEVANT.contains(name(w))).toList();
    }

    /** Whether {@code name=...} has {@code value} among its comma-separated values ({@code intel_iommu=on,sm_on}). */
    boolean hasValue(String name, String value) {
        return words.stream().anyMatch(w -> name(w).equals(name) && hasValueIn(w, value));
    }

    /** The first word that turns the IOMMU off, if any. */
    Optional<String> iommuOff() {
        for (String w : words) {
            String n = name(w);
            if ((n.equals("intel_iommu") && hasValueIn(w, "off")) || (n.equals("amd_iommu") && hasValueIn(w, "off"))
                    || (n.equals("iommu") && hasValueIn(w, "off"))) {
                return Optional.of(w);
            }
        }
        return Optional.empty();
    }

    /** The first word that turns interrupt remapping off, if any. */
    Optional<String> remappingOff() {
        for (String w : words) {
            if (name(w).equals("nointremap") || (name(w).equals("intremap") && hasValueIn(w, "off"))) return Optional.of(w);
        }
        return Optional.empty();
    }

    /**
     * The word that switches module loading off, if any: {@code nomodule} (the kernel's
     * {@code modules_disabled}, a bool: bare, or with a true value).
     */
    Optional<String> modulesOff() {
        for (String w : words) {
            if (!name(w).equals("nomodule")) continue;
            int eq = w.indexOf('=');
            String value = eq < 0 ? "1" : w.substring(eq + 1).toLowerCase(Locale.ROOT);
            if (value.equals("1") || value.equals("y") || value.equals("yes") || value.equals("on") || value.equals("true")) return Optional.of(w);
        }
        return Optional.empty();
    }

    private static boolean hasValueIn(String word, String value) {
        int eq = word.indexOf('=');
        if (eq < 0) return false;
        for (String v : word.substring(eq + 1).split(",")) {
            if (v.toLowerCase(Locale.ROOT).equals(value)) return true;
        }
        return false;
    }

    /** The parameter name of a word, as written. */
    private static String name(String word) {
        int eq = word.indexOf('=');
        return eq < 0 ? word : word.substring(0, eq);
    }
}
