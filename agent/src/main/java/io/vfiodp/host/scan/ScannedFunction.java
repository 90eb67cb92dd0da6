package io.vfiodp.host.scan;

import io.vfiodp.host.PciFunction;
import io.vfiodp.host.ScanProblem;
import java.util.List;
import java.util.Optional;

/**
 * What reading one {@code bus/pci/devices/<address>} gave: the function, plus where it lives
 * for the later steps (mdev types, vGPU files, IOMMU group members).
 */
sealed interface ScannedFunction {

    /**
     * @param dir           the function's real directory (absolute)
     * @param shownAs       how problems name it ({@code bus/pci/devices/<address>})
     * @param groupDir      the real {@code kernel/iommu_groups/<n>} directory, when in a group
     * @param hasMdevTypes  it has {@code mdev_supported_types}
     * @param hasNvidiaDir  it has an {@code nvidia} directory (vendor-specific vGPU files)
     * @param warnings      optional attributes that were unreadable and defaulted
     */
    record Found(PciFunction function, String dir, String shownAs, Optional<String> groupDir,
                 boolean hasMdevTypes, boolean hasNvidiaDir, List<ScanProblem> warnings) implements ScannedFunction {
        public Found {
            warnings = List.copyOf(warnings);
        }
    }

    record Skipped(ScanProblem problem) implements ScannedFunction {}
}
