package io.vfiodp.doctor;

import io.vfiodp.host.KernelFacts;
import java.util.List;
import java.util.Set;

/** Whose IOMMU this node has or would have: the firmware's ACPI tables say it best, the CPU's vendor where they are not visible. */
enum IommuVendor {
    INTEL("Intel VT-d", "the ACPI DMAR table"),
    AMD("AMD-Vi", "the ACPI IVRS table"),
    /** A hypervisor's paravirtual IOMMU, described to x86 guests by ACPI's VIOT table. */
    VIRTIO("virtio-iommu", "the ACPI VIOT table"),
    UNKNOWN("an IOMMU", "an ACPI DMAR or IVRS table");

    private final String hardware;
    private final String table;

    IommuVendor(String hardware, String table) {
        this.hardware = hardware;
        this.table = table;
    }

    String hardware() {
        return hardware;
    }

    String table() {
        return table;
    }

    static IommuVendor of(KernelFacts kernel) {
        Set<String> tables = kernel.acpiTables().known().<Set<String>>map(t -> t).orElse(Set.of());
        if (tables.contains("DMAR")) return INTEL;
        if (tables.contains("IVRS")) return AMD;
        if (tables.contains("VIOT")) return VIRTIO;
        for (KernelFacts.IommuUnit u : kernel.iommuUnits().known().orElse(List.of())) {
            if (u.driver().filter("intel-iommu"::equals).isPresent()) return INTEL;
            if (u.driver().filter("amd-iommu"::equals).isPresent()) return AMD;
        }
        String cpu = kernel.cpuVendor().known().orElse("");
        if (cpu.equals("GenuineIntel")) return INTEL;
        if (cpu.equals("AuthenticAMD")) return AMD;
        return UNKNOWN;
    }

    /** Whether the firmware's tables are visible and describe an IOMMU. */
    static boolean firmwareDescribes(KernelFacts kernel) {
        return kernel.acpiTables().known().map(t -> t.contains("DMAR") || t.contains("IVRS") || t.contains("VIOT")).orElse(false);
    }
}
