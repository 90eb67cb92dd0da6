package io.vfiodp.doctor;

import io.vfiodp.host.KernelFacts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code host.kernel}: the running kernel's release, where its build configuration was read, how it
 * provides VFIO and iommufd (built in, a module, absent), and whether it can load modules
 * ({@link KernelSupport}). Never fails: {@code vfio.modules} says what is in the way.
 */
final class KernelCheck implements Check {

    static final String ID = "host.kernel";
    private static final List<String> PIECES = List.of(VfioModulesCheck.VFIO, VfioModulesCheck.VFIO_PCI, VfioModulesCheck.TYPE1,
            VfioModulesCheck.IOMMUFD);

    @Override
    public List<Finding> run(NodeView node) {
        KernelFacts kernel = node.kernel();
        KernelSupport support = KernelSupport.of(kernel);
        String release = kernel.build().release().known().map(r -> "Linux " + r)
                .orElse("release unknown (" + CommandLineCheck.describe(kernel.build().release()) + ")");
        List<String> parts = new ArrayList<>(List.of(release));
        if (support.config().isPresent()) {
            parts.add("configuration from " + support.configWhere() + ": " + provisions(support));
        } else {
            parts.add("its configuration is " + support.configWhere());
        }
        parts.add(support.loadingWhy());
        return List.of(Finding.of(ID, new Outcome.Ok(String.join("; ", parts))));
    }

    /** {@code vfio, vfio_pci and vfio_iommu_type1 a module each, iommufd absent}, in the order of {@link #PIECES}. */
    private static String provisions(KernelSupport support) {
        Map<KernelSupport.Provision, List<String>> by = new LinkedHashMap<>();
        for (String piece : PIECES) {
            KernelSupport.Provision p = support.provision(piece);
            if (piece.equals(VfioModulesCheck.TYPE1) && p == KernelSupport.Provision.ABSENT && support.iommufdContainer()) continue;
            by.computeIfAbsent(p, k -> new ArrayList<>()).add(piece);
        }
        List<String> groups = new ArrayList<>();
        by.forEach((p, names) -> groups.add(VfioModulesCheck.join(names) + " " + (p == KernelSupport.Provision.MODULE && names.size() > 1
                ? "modules" : p.word())));
        String out = String.join(", ", groups);
        return support.iommufdContainer() ? out + " (iommufd provides /dev/vfio/vfio)" : out;
    }
}
