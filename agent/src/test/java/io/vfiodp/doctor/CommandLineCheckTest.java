package io.vfiodp.doctor;

import static io.vfiodp.doctor.Nodes.outcome;
import static io.vfiodp.doctor.Nodes.view;
import static io.vfiodp.doctor.Nodes.withCommandLine;
import static io.vfiodp.doctor.Nodes.withKernel;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CommandLineCheckTest {

    private final CommandLineCheck check = new CommandLineCheck();

    @Test
    void showsTheIommuOptionsOfAReadyNode() {
        assertThat(outcome(check, view("doctor-ready"))).isEqualTo(new Outcome.Ok("intel_iommu=on iommu=pt"));
    }

    @Test
    void withoutIommuPtSaysItIsOptional() {
        var v = view("doctor-ready");

        assertThat(outcome(check, withKernel(v, withCommandLine(v.kernel(), "ro intel_iommu=on quiet")))).isEqualTo(new Outcome.Ok(
                "intel_iommu=on (iommu=pt is optional: without it the host's own devices' DMA is translated too)"));
    }

    @Test
    void anIntelNodeWithTheIommuOffAndNoIntelIommuOnFailsWithTheLinesToAdd() {
        assertThat(outcome(check, view("doctor-iommu-off"))).isEqualTo(new Outcome.Fail(
                "no IOMMU options (the kernel's defaults apply): no intel_iommu=on, and this kernel leaves VT-d off without it",
                new Fix("add intel_iommu=on iommu=pt to the kernel command line and reboot", List.of(), List.of(
                        "# Debian, Ubuntu: add intel_iommu=on iommu=pt to GRUB_CMDLINE_LINUX in /etc/default/grub, then", "update-grub",
                        "# RHEL, Fedora:", "grubby --update-kernel=ALL --args=\"intel_iommu=on iommu=pt\"", "reboot"))));
    }

    @Test
    void anOptionThatTurnsTheIommuOffFailsWithTheLinesToRemoveIt() {
        var v = view("doctor-iommu-off");

        assertThat(outcome(check, withKernel(v, withCommandLine(v.kernel(), "ro intel_iommu=off quiet")))).isEqualTo(new Outcome.Fail(
                "intel_iommu=off: intel_iommu=off turns the IOMMU off",
                new Fix("remove intel_iommu=off from the kernel command line and reboot", List.of(), List.of(
                        "# Debian, Ubuntu: remove intel_iommu=off from GRUB_CMDLINE_LINUX in /etc/default/grub, then", "update-grub",
                        "# RHEL, Fedora:", "grubby --update-kernel=ALL --remove-args=\"intel_iommu=off\"", "reboot"))));
    }

    @Test
    void anAmdNodeNeedsNoOptionForItsIommu() {
        assertThat(outcome(check, view("doctor-amd-shared"))).isEqualTo(new Outcome.Ok("iommu=pt vfio_iommu_type1.allow_unsafe_interrupts=1"));
    }

    @Test
    void anUnreadableCommandLineWarnsNamingTheFile() {
        assertThat(outcome(check, view("doctor-odd"))).isEqualTo(new Outcome.Warn(
                "cannot read the kernel command line: " + Nodes.file("doctor-odd", "proc/cmdline") + ": not UTF-8 text",
                Fix.advice("run doctor where --proc-root is the host's /proc")));
    }
}
