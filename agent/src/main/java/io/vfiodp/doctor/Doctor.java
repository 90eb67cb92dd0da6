package io.vfiodp.doctor;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs every check, in the order the report shows them: the machine and its kernel, the node's IOMMU and VFIO, each device, the
 * kubelet, the verdict.
 */
public final class Doctor {

    private static final List<Check> CHECKS = List.of(new MachineCheck(), new KernelCheck(), new IommuCheck(), new CommandLineCheck(),
            new InterruptRemappingCheck(),
            new VfioModulesCheck(), new VfioContainerCheck(), new IommufdCheck(), new UnsafeInterruptsCheck(), new ScanCheck(),
            new InputsCheck(), new DeviceChecks(), new KubeletCheck(), new KubeVirtCheck(), new PassthroughCheck());

    private Doctor() {}

    public static Report examine(NodeView node) {
        List<Finding> findings = new ArrayList<>();
        for (Check c : CHECKS) findings.addAll(c.run(node));
        return new Report(findings);
    }
}
