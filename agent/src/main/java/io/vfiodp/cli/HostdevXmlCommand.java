package io.vfiodp.cli;

import io.vfiodp.libvirt.HostdevPlanner;
import io.vfiodp.libvirt.HostdevXml;
import io.vfiodp.libvirt.KubeVirtRelease;
import io.vfiodp.libvirt.LauncherEnv;
import io.vfiodp.libvirt.PlanOutcome;
import io.vfiodp.libvirt.VmiDevices;
import io.vfiodp.libvirt.XmlOutcome;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "hostdev-xml",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
            "Print the libvirt <hostdev> elements for the devices the device plugin allocated to this container "
                    + "(PCI_RESOURCE_*, MDEV_PCI_RESOURCE_*), as virt-launcher would write them; with --domain, "
                    + "print that domain with them merged in.",
            "Exit status 1 (and nothing on stdout) when the environment and the VMI do not match."})
final class HostdevXmlCommand implements Callable<Integer> {

    @Option(names = "--vmi", paramLabel = "FILE",
            description = "VirtualMachineInstance (JSON or YAML): gpus[] then hostDevices[] pick devices by position and name the aliases. "
                    + "Without it, every device variable becomes hostdevs, in variable-name order.")
    Path vmi;

    @Option(names = "--env-file", paramLabel = "FILE",
            description = "Read NAME=VALUE lines from FILE instead of this process's environment.")
    Path envFile;

    @Option(names = "--domain", paramLabel = "FILE",
            description = "A libvirt domain XML to merge into; hostdevs already there (same source address or UUID) are kept, not repeated.")
    Path domain;

    @Option(names = "--companions",
            description = "Attach each GPU's companion functions (from VFIO_DP_COMPANIONS_<NAME>) on the GPU's guest slot, "
                    + "unless the VMI's vfio-device-plugin.io/companions annotation says \"false\".")
    boolean companions;

    @Option(names = "--kubevirt-version", paramLabel = "VERSION", defaultValue = KubeVirtRelease.NEWEST_VERSION, converter = KubeVirtVersionConverter.class,
            description = "Write what virt-launcher of this KubeVirt release (X.Y) writes where releases differ: 1.9 "
                    + "(any v1.9.x) or 1.10 (the coming release, as main is; 'main' works too). Default: ${DEFAULT-VALUE}, "
                    + "the newest release.")
    KubeVirtRelease kubevirtVersion;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        LauncherEnv env = envFile != null ? LauncherEnv.fromFile(envFile) : LauncherEnv.of(System.getenv());
        Optional<VmiDevices> vmiDevices;
        try {
            vmiDevices = vmi == null ? Optional.empty() : Optional.of(VmiDevices.parse(Files.readString(vmi, StandardCharsets.UTF_8)));
        } catch (IllegalArgumentException e) {
            err.println(vmi + ": " + e.getMessage());
            return 1;
        }
        PlanOutcome plan = new HostdevPlanner().plan(env, vmiDevices, companions, kubevirtVersion);
        if (plan instanceof PlanOutcome.Failed failed) {
            err.println(failed.message());
            return 1;
        }
        PlanOutcome.Planned planned = (PlanOutcome.Planned) plan;
        planned.notes().forEach(n -> err.println("note: " + n));
        planned.warnings().forEach(w -> err.println("warning: " + w));
        HostdevXml xml = new HostdevXml();
        XmlOutcome written = domain == null ? xml.elements(planned.hostdevs()) : xml.merge(Files.readAllBytes(domain), planned.hostdevs());
        return switch (written) {
            case XmlOutcome.Refused refused -> {
                err.println((domain == null ? "" : domain + ": ") + refused.message());
                yield 1;
            }
            case XmlOutcome.Written w -> {
                out.print(w.xml());
                out.flush();
                yield 0;
            }
        };
    }
}
