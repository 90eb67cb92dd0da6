package io.vfiodp.doctor;

import io.vfiodp.kube.kubevirt.KubeVirtCrReading;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.function.Supplier;

/** {@code doctor} as a command runs it: read the node, examine it, print the report, answer the verdict's exit status. */
public final class DoctorRun {

    private DoctorRun() {}

    /**
     * @param kubevirt the KubeVirt CR read once, or empty when it should not be asked ({@code --kubevirt off})
     * @return 0 when ready, 1 with warnings, 2 when not ready
     */
    public static int run(DoctorSettings settings, VfioProbe vfio, Supplier<Optional<KubeVirtCrReading>> kubevirt, boolean json,
                          PrintWriter out) {
        Report report = Doctor.examine(NodeReader.read(settings, vfio, kubevirt));
        out.print(json ? ReportJson.format(report) : ReportText.format(report));
        out.flush();
        return report.verdict().exitCode();
    }
}
