package io.vfiodp.doctor;

import static io.vfiodp.doctor.Nodes.outcome;
import static io.vfiodp.doctor.Nodes.view;
import static io.vfiodp.doctor.Nodes.withVfio;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.Reading;
import io.vfiodp.host.vfio.VfioAvailability;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The VFIO side: vfio.modules, vfio.container, vfio.iommufd and vfio.unsafe-interrupts. */
class VfioChecksTest {

    @Test
    void modulesLoadedAndTheDriverRegisteredIsOk() {
        assertThat(outcome(new VfioModulesCheck(), view("doctor-ready")))
                .isEqualTo(new Outcome.Ok("vfio, vfio_pci and vfio_iommu_type1 loaded; the vfio-pci driver is registered"));
    }

    @Test
    void missingModulesFailWithTheCommandsThatLoadThemNowAndAtBoot() {
        NodeView v = withVfio(view("doctor-iommu-off"), new Reading.Found<>(new VfioAvailability.Unavailable("/dev/vfio/vfio does not exist")));

        assertThat(outcome(new VfioModulesCheck(), v)).isEqualTo(new Outcome.Fail("not loaded: vfio, vfio_pci, vfio_iommu_type1 (modules of"
                + " this kernel: CONFIG_VFIO=m, CONFIG_VFIO_PCI=m, CONFIG_VFIO_IOMMU_TYPE1=m in "
                + Nodes.file("doctor-iommu-off", "boot/config-5.15.0-119-generic") + ")",
                new Fix("load them now, and at every boot", List.of("modprobe -a vfio vfio_pci vfio_iommu_type1"),
                        List.of("printf '%s\\n' vfio vfio_pci vfio_iommu_type1 > /etc/modules-load.d/vfio.conf"))));
    }

    @Test
    void theContainerAnsweringIsOk() {
        assertThat(outcome(new VfioContainerCheck(), view("doctor-ready")))
                .isEqualTo(new Outcome.Ok("VFIO available: API version 0, type1 IOMMU yes, type1v2 IOMMU yes"));
    }

    @Test
    void aContainerThatDoesNotAnswerFailsWithItsReason() {
        NodeView v = withVfio(view("doctor-ready"), new Reading.Found<>(new VfioAvailability.Unavailable(
                "/dev/vfio/vfio: no type1 IOMMU backend (is the vfio_iommu_type1 module loaded?)")));

        assertThat(outcome(new VfioContainerCheck(), v)).isEqualTo(new Outcome.Fail(
                "/dev/vfio/vfio: no type1 IOMMU backend (is the vfio_iommu_type1 module loaded?)",
                Fix.advice("see vfio.modules for VFIO itself; in a pod, mount the host's /dev/vfio")));
    }

    @Test
    void aContainerThisProcessMayNotOpenOnlyWarns() {
        NodeView v = withVfio(view("doctor-ready"), new Reading.Unreadable<>("/dev/vfio/vfio",
                "this process may not open it (operation not permitted: a pod's device cgroup)"));

        assertThat(outcome(new VfioContainerCheck(), v)).isEqualTo(new Outcome.Warn(
                "not asked: /dev/vfio/vfio: this process may not open it (operation not permitted: a pod's device cgroup)",
                Fix.advice("run `vfio-device-plugin doctor` as root on the host to ask it; VMs get the devices through Allocate either way")));
    }

    @Test
    void iommufdWithDeviceNodesSaysVmsGetThem() {
        assertThat(outcome(new IommufdCheck(), view("doctor-ready"))).isEqualTo(new Outcome.Ok(
                "/dev/iommu present, 2 VFIO device nodes under /dev/vfio/devices: VMs get them with the container"));
    }

    @Test
    void noIommufdIsFineWithTheContainer() {
        assertThat(outcome(new IommufdCheck(), view("doctor-amd-shared"))).isEqualTo(new Outcome.Ok(
                "no iommufd (Linux 6.2+, CONFIG_IOMMUFD): VMs use the container /dev/vfio/vfio"));
    }

    @Test
    void unsafeInterruptsNotAllowedIsOk() {
        assertThat(outcome(new UnsafeInterruptsCheck(), view("doctor-ready")))
                .isEqualTo(new Outcome.Ok("not allowed: VFIO hands out only devices whose interrupts are isolated"));
    }

    @Test
    void unsafeInterruptsAllowedWarnsWithTheCommandThatTurnsThemOff() {
        assertThat(outcome(new UnsafeInterruptsCheck(), view("doctor-amd-shared"))).isEqualTo(new Outcome.Warn(
                "vfio_iommu_type1.allow_unsafe_interrupts is set: VFIO hands out devices whose interrupts are not isolated, so a VM's device"
                        + " can send the host interrupts",
                new Fix("turn it off where interrupt remapping is on (see iommu.interrupt-remapping), and drop it from /etc/modprobe.d and the"
                        + " kernel command line", List.of("echo N > /sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts"),
                        List.of("grep -rl allow_unsafe_interrupts /etc/modprobe.d    # delete the option from each file listed",
                                "update-initramfs -u    # Debian, Ubuntu; RHEL, Fedora: dracut -f"))));
    }

    @Test
    void anUnsafeInterruptsValueThatIsNeitherYNorNWarnsNamingTheFile() {
        assertThat(outcome(new UnsafeInterruptsCheck(), view("doctor-odd"))).isEqualTo(new Outcome.Warn(
                "cannot read " + Nodes.file("doctor-odd", "sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts") + ": not Y or N: 'maybe'",
                Fix.advice("run doctor where --sysfs-root is the host's /sys")));
    }

    @Test
    void withoutTheType1ModuleNothingAllowsUnsafeInterrupts() {
        assertThat(outcome(new UnsafeInterruptsCheck(), view("doctor-iommu-off"))).isEqualTo(new Outcome.Ok(
                "vfio_iommu_type1 is not loaded (see vfio.modules); nothing allows unsafe interrupts"));
    }
}
