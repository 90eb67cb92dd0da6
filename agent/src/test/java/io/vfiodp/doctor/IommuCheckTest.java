package io.vfiodp.doctor;

import static io.vfiodp.doctor.Nodes.outcome;
import static io.vfiodp.doctor.Nodes.view;
import static io.vfiodp.doctor.Nodes.withAcpiTables;
import static io.vfiodp.doctor.Nodes.withKernel;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.Reading;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class IommuCheckTest {

    private final IommuCheck check = new IommuCheck();

    @Test
    void onWithGroupsNamesTheUnits() {
        assertThat(outcome(check, view("doctor-ready"))).isEqualTo(new Outcome.Ok("on: 5 IOMMU groups, Intel VT-d units dmar0, dmar1"));
    }

    @Test
    void onWithAnAmdUnitSaysAmdVi() {
        assertThat(outcome(check, view("doctor-amd-shared"))).isEqualTo(new Outcome.Ok("on: 8 IOMMU groups, AMD-Vi units ivhd0"));
    }

    @Test
    void offWhileTheFirmwareDescribesVtdPointsAtTheCommandLine() {
        assertThat(outcome(check, view("doctor-iommu-off"))).isEqualTo(new Outcome.Fail(
                "off: the kernel made no IOMMU groups; the firmware describes Intel VT-d (the ACPI DMAR table) but the kernel did not turn it on",
                Fix.advice("boot with the IOMMU on: see iommu.cmdline")));
    }

    @Test
    void offWithoutAnIommuTableAsksForTheFirmwareSetting() {
        var v = view("doctor-iommu-off");
        var noDmar = withKernel(v, withAcpiTables(v.kernel(), new Reading.Found<>(new TreeSet<>(List.of("APIC", "FACP")))));

        assertThat(outcome(check, noDmar)).isEqualTo(new Outcome.Fail(
                "off: the kernel made no IOMMU groups; the firmware describes no IOMMU (no ACPI DMAR or IVRS table)",
                Fix.advice("enable Intel VT-d in the firmware setup, then reboot")));
    }

    @Test
    void offWhereTheTablesAreMaskedSaysSoAndAsksForBoth() {
        var v = view("doctor-iommu-off");
        var masked = withKernel(v, withAcpiTables(v.kernel(), new Reading.Absent<>("/sys/firmware/acpi/tables")));

        assertThat(outcome(check, masked)).isEqualTo(new Outcome.Fail(
                "off: the kernel made no IOMMU groups (the firmware's ACPI tables are not visible here, a container masks /sys/firmware)",
                Fix.advice("enable Intel VT-d in the firmware setup, then boot with the IOMMU on (see iommu.cmdline)")));
    }

    @Test
    void unreadableGroupsWarnNamingTheDirectory() {
        var v = view("doctor-ready");
        var k = v.kernel();
        var broken = withKernel(v, new io.vfiodp.host.KernelFacts(k.iommuUnits(), new Reading.Unreadable<>("/sys/kernel/iommu_groups",
                "permission denied"), k.acpiTables(), k.modules(), k.pciDrivers(), k.numaNodes(), k.commandLine(), k.interrupts(), k.cpuVendor(),
                k.machine(), k.build()));

        assertThat(outcome(check, broken)).isEqualTo(new Outcome.Warn(
                "cannot tell whether the IOMMU is on: /sys/kernel/iommu_groups: permission denied",
                Fix.advice("run doctor where --sysfs-root is the host's /sys (read-only is enough)")));
    }
}
