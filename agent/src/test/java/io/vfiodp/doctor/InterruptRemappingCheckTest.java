package io.vfiodp.doctor;

import static io.vfiodp.doctor.Nodes.outcome;
import static io.vfiodp.doctor.Nodes.view;
import static io.vfiodp.doctor.Nodes.withCommandLine;
import static io.vfiodp.doctor.Nodes.withKernel;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class InterruptRemappingCheckTest {

    private static final String UNSAFE = "echo 'options vfio_iommu_type1 allow_unsafe_interrupts=1' > /etc/modprobe.d/vfio-unsafe-interrupts.conf";

    private final InterruptRemappingCheck check = new InterruptRemappingCheck();

    private static KernelFacts withInterrupts(KernelFacts k, KernelFacts.InterruptChips chips) {
        return new KernelFacts(k.iommuUnits(), k.iommuGroups(), k.acpiTables(), k.modules(), k.pciDrivers(), k.numaNodes(), k.commandLine(),
                new Reading.Found<>(chips), k.cpuVendor(), k.machine(), k.build());
    }

    @Test
    void onWhenInterruptsGoThroughAnIrChip() {
        assertThat(outcome(check, view("doctor-ready"))).isEqualTo(new Outcome.Ok("on: interrupts go through IR-IO-APIC (/proc/interrupts)"));
    }

    @Test
    void offFailsBecauseVfioRefusesGroupsWithoutIt() {
        assertThat(outcome(check, view("doctor-iommu-off"))).isEqualTo(new Outcome.Fail(
                "off: interrupts go through IO-APIC unremapped (/proc/interrupts); VFIO refuses to attach a group without it"
                        + " (\"No interrupt remapping support\")",
                new Fix("turn interrupt remapping on in the firmware setup (with VT-d or AMD-Vi; some firmware lists it as x2APIC or"
                        + " Interrupt Remapping); only where the platform has none, let VFIO go without it, and know that a VM's device can"
                        + " then send the host interrupts", List.of(), List.of(UNSAFE))));
    }

    @Test
    void offOnUnitsThatSupportItNamesThem() {
        var v = view("doctor-ready");
        var off = withKernel(v, withInterrupts(v.kernel(), new KernelFacts.InterruptChips(Optional.empty(), Optional.of("PCI-MSI"))));

        assertThat(((Outcome.Fail) outcome(check, off)).fix().advice()).contains("(dmar0, dmar1 support it: ecap bit 3)");
    }

    @Test
    void offBecauseTheCommandLineSaysSoAsksToRemoveTheOption() {
        var v = view("doctor-iommu-off");
        var off = withKernel(v, withCommandLine(v.kernel(), "ro intremap=off"));

        assertThat(((Outcome.Fail) outcome(check, off)).fix()).isEqualTo(new Fix("remove intremap=off from the kernel command line and reboot",
                List.of(), Commands.removeKernelArg("intremap=off")));
    }

    @Test
    void offWhileUnsafeInterruptsAreAllowedOnlyWarns() {
        var v = view("doctor-amd-shared");
        var off = withKernel(v, withInterrupts(v.kernel(), new KernelFacts.InterruptChips(Optional.empty(), Optional.of("IO-APIC"))));

        assertThat(outcome(check, off)).isInstanceOf(Outcome.Warn.class).extracting(Outcome::detail).isEqualTo(
                "off: interrupts go through IO-APIC unremapped (/proc/interrupts); VFIO still takes devices because allow_unsafe_interrupts"
                        + " is set, so a VM's device can send the host interrupts");
    }

    @Test
    void noInterruptChipAtAllCannotTell() {
        var v = view("doctor-ready");
        var none = withKernel(v, withInterrupts(v.kernel(), new KernelFacts.InterruptChips(Optional.empty(), Optional.empty())));

        assertThat(outcome(check, none)).isEqualTo(new Outcome.Warn("cannot tell: /proc/interrupts names no IO-APIC or MSI interrupt",
                Fix.advice("run doctor again once a device has taken an interrupt")));
    }

    @Test
    void anUnreadableInterruptsFileWarnsNamingIt() {
        assertThat(outcome(check, view("doctor-odd"))).isEqualTo(new Outcome.Warn(
                "cannot tell: " + Nodes.file("doctor-odd", "proc/interrupts") + ": is a directory, not a file",
                Fix.advice("run doctor where --proc-root is the host's /proc")));
    }
}
