package io.vfiodp.doctor;

import static io.vfiodp.doctor.Nodes.outcome;
import static io.vfiodp.doctor.Nodes.view;
import static io.vfiodp.doctor.Nodes.withAcpiTables;
import static io.vfiodp.doctor.Nodes.withKernel;
import static io.vfiodp.doctor.Nodes.withMachine;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A virtual machine told from bare metal ({@link Platform}, host.machine), and the fixes the IOMMU checks give on one. */
class VirtualMachineChecksTest {

    private static final NodeView.Roots ROOTS = new NodeView.Roots(Path.of("/sys"), Path.of("/dev"), Path.of("/proc"));
    private static final String VIOMMU = "its hypervisor must present a virtual IOMMU, which no setting inside the virtual machine can add: on"
            + " QEMU/KVM, start it with -machine q35,kernel-irqchip=split and -device intel-iommu,intremap=on,caching-mode=on (libvirt:"
            + " <iommu model='intel'> with intremap and caching_mode on, and <ioapic driver='qemu'/>), or with -device virtio-iommu-pci;"
            + " elsewhere, use a bare-metal or passthrough-capable instance";

    /** A machine: the CPU's flag ({@code yes}, {@code no}, or none: no flags line), DMI's vendor and product (empty: no DMI), hypervisor/type. */
    private static KernelFacts.Machine machine(String flag, String vendor, String product, String hypervisorType) {
        Reading<Boolean> f = flag.equals("none") ? new Reading.Absent<>("/proc/cpuinfo flags") : new Reading.Found<>(flag.equals("yes"));
        TreeMap<String, Reading<String>> dmi = new TreeMap<>();
        dmi.put("sys_vendor", vendor == null ? new Reading.Absent<>("/sys/class/dmi/id/sys_vendor") : new Reading.Found<>(vendor));
        dmi.put("product_name", product == null ? new Reading.Absent<>("/sys/class/dmi/id/product_name") : new Reading.Found<>(product));
        Reading<String> type = hypervisorType == null ? new Reading.Absent<>("/sys/hypervisor/type") : new Reading.Found<>(hypervisorType);
        return new KernelFacts.Machine(f, dmi, type);
    }

    @ParameterizedTest(name = "{0} {1} {2} {3}: {4}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
        // the CPU's flag alone (firecracker: no DMI)
        "yes |-                  |-                                 |-  |VIRTUAL   |the CPU's hypervisor flag (/proc/cpuinfo); no DMI",
        // TCG sets no flag with some CPU models: DMI says QEMU
        "no  |QEMU               |Standard PC (Q35 + ICH9, 2009)    |-  |VIRTUAL   |DMI sys_vendor 'QEMU'; DMI: QEMU Standard PC (Q35 + ICH9, 2009)",
        // VirtualBox sets no flag either
        "no  |innotek GmbH       |VirtualBox                        |-  |VIRTUAL   |DMI product_name 'VirtualBox'; DMI: innotek GmbH VirtualBox",
        "yes |Amazon EC2         |m5.large                          |-  |VIRTUAL   |the CPU's hypervisor flag (/proc/cpuinfo); DMI sys_vendor 'Amazon EC2'; DMI: Amazon EC2 m5.large",
        // EC2's bare-metal instances carry the same DMI vendor
        "no  |Amazon EC2         |m5.metal                          |-  |BARE_METAL|no hypervisor flag in /proc/cpuinfo; DMI: Amazon EC2 m5.metal",
        // arm64: no flags line; DMI decides where it can
        "none|Amazon EC2         |m7g.metal                         |-  |BARE_METAL|DMI: Amazon EC2 m7g.metal",
        "none|Amazon EC2         |m7g.large                         |-  |VIRTUAL   |DMI sys_vendor 'Amazon EC2'; DMI: Amazon EC2 m7g.large",
        "none|Ampere Computing   |Mt.Jade                           |-  |UNKNOWN   |no CPU flags to read (/proc/cpuinfo flags does not exist), and DMI (Ampere Computing Mt.Jade) names no hypervisor",
        "no  |-                  |-                                 |xen|VIRTUAL   |/sys/hypervisor/type says xen; no DMI",
        "no  |Supermicro         |SYS-221H-TNR                      |-  |BARE_METAL|no hypervisor flag in /proc/cpuinfo; DMI: Supermicro SYS-221H-TNR",
        // Oracle makes servers as well as VirtualBox: its name alone says nothing
        "no  |Oracle Corporation |ORACLE SERVER X9-2                |-  |BARE_METAL|no hypervisor flag in /proc/cpuinfo; DMI: Oracle Corporation ORACLE SERVER X9-2",
    })
    void theSignalsTellAVirtualMachineFromBareMetal(String flag, String vendor, String product, String type, Platform.Kind kind, String evidence) {
        assertThat(Platform.of(machine(flag, vendor, product, type), ROOTS)).isEqualTo(new Platform(kind, evidence));
    }

    @Test
    void theMachineLineSaysWhichAndWhy() {
        assertThat(outcome(new MachineCheck(), view("doctor-vm-firecracker"))).isEqualTo(new Outcome.Ok(
                "a virtual machine: the CPU's hypervisor flag (" + Nodes.file("doctor-vm-firecracker", "proc/cpuinfo") + "); no DMI"));
        assertThat(outcome(new MachineCheck(), view("doctor-ready"))).isEqualTo(new Outcome.Ok(
                "bare metal: no hypervisor flag in " + Nodes.file("doctor-ready", "proc/cpuinfo") + "; DMI: Supermicro SYS-221H-TNR"));
    }

    @Test
    void aVirtualMachineWithoutAnIommuIsToldWhatItsHypervisorMustPresentNotAFirmwareSetting() {
        assertThat(outcome(new IommuCheck(), view("doctor-vm-firecracker"))).isEqualTo(new Outcome.Fail(
                "off: the kernel made no IOMMU groups; this virtual machine's hypervisor presents no IOMMU (no ACPI DMAR, IVRS or VIOT table)",
                Fix.advice(VIOMMU)));
    }

    @Test
    void aVirtualMachineWhoseTablesAreMaskedIsToldBoth() {
        NodeView v = view("doctor-vm-firecracker");
        NodeView masked = withKernel(v, withAcpiTables(v.kernel(), new Reading.Absent<>("/sys/firmware/acpi/tables")));

        assertThat(outcome(new IommuCheck(), masked)).isEqualTo(new Outcome.Fail(
                "off: the kernel made no IOMMU groups on a virtual machine (the ACPI tables are not visible here, a container masks /sys/firmware)",
                Fix.advice(VIOMMU + "; then boot with the IOMMU on (see iommu.cmdline)")));
    }

    @Test
    void aVirtualMachineWhoseHypervisorPresentsAVirtioIommuNeedsItsDriver() {
        NodeView v = view("doctor-vm-firecracker");
        NodeView viot = withKernel(v, withAcpiTables(v.kernel(), new Reading.Found<>(new TreeSet<>(List.of("APIC", "FACP", "VIOT")))));

        assertThat(outcome(new IommuCheck(), viot)).isEqualTo(new Outcome.Fail(
                "off: the kernel made no IOMMU groups; the hypervisor presents a virtio-iommu (the ACPI VIOT table) but the kernel did not turn it on",
                Fix.advice("boot a kernel with the virtio-iommu driver (CONFIG_VIRTIO_IOMMU) built in, or loaded before the devices")));
    }

    @Test
    void aVirtualMachineWithAVirtualIntelIommuTurnedOffIsToldTheCommandLine() {
        NodeView v = view("doctor-iommu-off");
        NodeView vm = withKernel(v, withMachine(v.kernel(), machine("yes", "QEMU", "Standard PC (Q35 + ICH9, 2009)", null)));

        assertThat(outcome(new IommuCheck(), vm)).isEqualTo(new Outcome.Fail("off: the kernel made no IOMMU groups; the firmware describes"
                + " Intel VT-d (the ACPI DMAR table) but the kernel did not turn it on", Fix.advice("boot with the IOMMU on: see iommu.cmdline")));
    }

    @Test
    void whereDoctorCannotTellTheFixNamesTheFirmwareAndTheHypervisor() {
        NodeView v = view("doctor-iommu-off");
        KernelFacts unknown = withMachine(v.kernel(), machine("none", null, null, null));
        NodeView noTables = withKernel(v, withAcpiTables(unknown, new Reading.Found<>(new TreeSet<>(List.of("APIC", "FACP")))));

        assertThat(outcome(new IommuCheck(), noTables)).isEqualTo(new Outcome.Fail(
                "off: the kernel made no IOMMU groups; the firmware describes no IOMMU (no ACPI DMAR or IVRS table)",
                Fix.advice("enable Intel VT-d in the firmware setup, then reboot; on a virtual machine, " + VIOMMU)));
    }

    @Test
    void interruptRemappingOnAVirtualMachineIsTheHypervisorsToTurnOn() {
        Outcome.Fail off = (Outcome.Fail) outcome(new InterruptRemappingCheck(), view("doctor-vm-firecracker"));

        assertThat(off.fix().advice()).startsWith("the hypervisor's virtual IOMMU must remap interrupts, which no setting inside the virtual"
                + " machine can change: on QEMU/KVM, -device intel-iommu,intremap=on,caching-mode=on with -machine q35,kernel-irqchip=split")
                .doesNotContain("firmware setup");
        // this kernel has no vfio_iommu_type1 to let go without it
        assertThat(off.fix().forGood()).isEmpty();
    }

    @Test
    void theSameNodeOnBareMetalIsToldTheFirmwareSetup() {
        NodeView v = view("doctor-vm-firecracker");
        NodeView metal = withKernel(v, withMachine(v.kernel(), machine("no", "Supermicro", "AS-1115CS-TNR", null)));

        assertThat(((Outcome.Fail) outcome(new IommuCheck(), metal)).fix()).isEqualTo(Fix.advice("enable AMD-Vi in the firmware setup, then reboot"));
        assertThat(((Outcome.Fail) outcome(new InterruptRemappingCheck(), metal)).fix().advice())
                .startsWith("turn interrupt remapping on in the firmware setup");
    }
}
