package io.vfiodp.doctor;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import io.vfiodp.host.vfio.VfioAvailability;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code vfio.modules}: the VFIO core ({@code vfio}), its PCI driver ({@code vfio_pci}) and the
 * type1 IOMMU backend ({@code vfio_iommu_type1}). {@code /sys/module/<name>} shows a loaded module
 * and a built-in one with parameters; the vfio-pci driver's entry under {@code bus/pci/drivers}
 * and an answering {@code /dev/vfio/vfio} show the same from the other side.
 */
final class VfioModulesCheck implements Check {

    static final String ID = "vfio.modules";
    static final String VFIO = "vfio";
    static final String VFIO_PCI = "vfio_pci";
    static final String TYPE1 = "vfio_iommu_type1";
    static final String IOMMUFD = "iommufd";
    static final String ALLOW_UNSAFE = "allow_unsafe_interrupts";

    /** The modules doctor asks {@link KernelFacts#read} for, with the parameters it reads. */
    static final Map<String, List<String>> MODULES = Map.of(VFIO, List.of(), VFIO_PCI, List.of(), TYPE1, List.of(ALLOW_UNSAFE),
            IOMMUFD, List.of(ALLOW_UNSAFE));

    @Override
    public List<Finding> run(NodeView node) {
        KernelFacts kernel = node.kernel();
        List<String> unreadable = new ArrayList<>();
        for (String m : List.of(VFIO, VFIO_PCI, TYPE1)) {
            if (kernel.module(m) instanceof Reading.Unreadable<?> u) unreadable.add(u.describe());
        }
        if (kernel.pciDrivers() instanceof Reading.Unreadable<?> u) unreadable.add(u.describe());
        if (!unreadable.isEmpty()) {
            return List.of(Finding.of(ID, new Outcome.Warn("cannot tell which VFIO modules are loaded: " + String.join("; ", unreadable),
                    Fix.advice("run doctor where --sysfs-root is the host's /sys"))));
        }
        boolean container = node.host().devNodes().vfioContainer();
        boolean type1 = node.vfio().known().map(v -> v instanceof VfioAvailability.Available a && (a.type1() || a.type1v2())).orElse(false);
        List<String> missing = new ArrayList<>();
        if (!loaded(kernel, VFIO) && !container) missing.add(VFIO);
        if (!loaded(kernel, VFIO_PCI) && !node.vfioPciRegistered()) missing.add(VFIO_PCI);
        if (!loaded(kernel, TYPE1) && !type1) missing.add(TYPE1);
        if (missing.isEmpty()) {
            return List.of(Finding.of(ID, new Outcome.Ok("vfio, vfio_pci and vfio_iommu_type1 loaded; the vfio-pci driver is registered")));
        }
        return List.of(Finding.of(ID, new Outcome.Fail("not loaded: " + String.join(", ", missing),
                new Fix("load them now, and at every boot", List.of("modprobe -a " + String.join(" ", missing)),
                        List.of("printf '%s\\n' " + String.join(" ", missing) + " > /etc/modules-load.d/vfio.conf")))));
    }

    static boolean loaded(KernelFacts kernel, String module) {
        return kernel.module(module) instanceof Reading.Found<?>;
    }
}
