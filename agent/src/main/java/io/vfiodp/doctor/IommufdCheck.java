package io.vfiodp.doctor;

import java.util.List;

/**
 * {@code vfio.iommufd}: whether the host offers iommufd ({@code /dev/iommu}, Linux 6.2+). VMs work
 * either way: with it, Allocate also hands out {@code /dev/iommu} and the device's
 * {@code /dev/vfio/devices/vfioN}; without it, the container {@code /dev/vfio/vfio} alone.
 */
final class IommufdCheck implements Check {

    static final String ID = "vfio.iommufd";

    @Override
    public List<Finding> run(NodeView node) {
        boolean devIommu = node.host().devNodes().iommu();
        int cdevs = node.host().devNodes().vfioCdevs().size();
        boolean module = VfioModulesCheck.loaded(node.kernel(), VfioModulesCheck.IOMMUFD);
        String detail;
        if (devIommu) {
            detail = "/dev/iommu present, " + cdevs + " VFIO device node" + (cdevs == 1 ? "" : "s") + " under /dev/vfio/devices:"
                    + " VMs get them with the container";
        } else if (module) {
            detail = "iommufd is loaded but no /dev/iommu is visible here: VMs use the container /dev/vfio/vfio"
                    + " (mount /dev/iommu into the pod for iommufd)";
        } else {
            KernelSupport support = KernelSupport.of(node.kernel());
            String option = KernelSupport.OPTION.get(VfioModulesCheck.IOMMUFD);
            detail = switch (support.provision(VfioModulesCheck.IOMMUFD)) {
                case ABSENT -> support.config().map(c -> "no iommufd: this kernel is built without it (" + option + " is not set in " + c.file() + ")")
                        .orElse("no iommufd (Linux 6.2+, " + option + ")");
                case MODULE -> "iommufd is a module of this kernel, not loaded";
                case BUILT_IN -> "iommufd is built in, but no /dev/iommu is visible here (mount /dev/iommu into the pod for iommufd)";
                case UNKNOWN -> "no iommufd (Linux 6.2+, " + option + ")";
            } + ": VMs use the container /dev/vfio/vfio";
        }
        return List.of(Finding.of(ID, new Outcome.Ok(detail)));
    }
}
