package io.vfiodp.policy;

import io.vfiodp.host.PciAddress;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The policy's answer for one snapshot: what to serve, and a decision for every relevant device.
 *
 * @param desiredState  the resources to serve
 * @param functions     a decision per relevant PCI function (GPUs, NVSwitches, anything on a
 *                      VFIO driver, companions, SR-IOV vGPU VFs, anything a configuration selects)
 * @param mdevs         a decision per mediated device, by UUID
 * @param problems      configuration entries that were skipped or overridden
 */
public record PolicyResult(
        DesiredState desiredState,
        SortedMap<PciAddress, Decision> functions,
        SortedMap<String, Decision> mdevs,
        List<PolicyProblem> problems) {

    public PolicyResult {
        functions = Collections.unmodifiableSortedMap(new TreeMap<>(functions));
        mdevs = Collections.unmodifiableSortedMap(new TreeMap<>(mdevs));
        problems = List.copyOf(problems);
    }
}
