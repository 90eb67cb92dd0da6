package io.vfiodp.doctor;

import static io.vfiodp.doctor.Nodes.about;
import static io.vfiodp.doctor.Nodes.view;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.PciFunction;
import io.vfiodp.host.fixtures.Trees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** device.driver, device.group, device.companions, device.numa and device.reset on the fixture nodes. */
class DeviceChecksTest {

    @Test
    void candidatesAreNvidiaGpusAndNvswitchesButNotTheirOtherFunctions() {
        assertThat(view("doctor-iommu-off").candidates()).extracting(f -> f.address().toString()).containsExactly("0000:01:00.0");
    }

    @Test
    void aConfigurationAddsTheDevicesItsSelectorsName(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("config.yaml"), """
                permittedHostDevices:
                  pciHostDevices:
                    - pciVendorSelector: "8086:0A54"
                      resourceName: example.com/nvme
                      externalResourceProvider: true
                """);

        assertThat(view("t4-numa", config).candidates()).extracting(PciFunction::vendorDevice)
                .containsExactly("10de:1eb8", "10de:1eb8", "10de:20b5", "8086:0a54", "10de:1eb8", "10de:1eb8");
    }

    @Test
    void aGroupWhoseMembersCannotBeReadIsNotCalledViableNorAloneAndItsFileIsNamed(@TempDir Path dir) throws IOException {
        Path node = dir.resolve("doctor-ready");
        Trees.copy(Nodes.root("doctor-ready"), node);
        Path devices = node.resolve("sys/kernel/iommu_groups/21/devices");
        Trees.deleteRecursively(devices);
        Files.writeString(devices, "0000:18:00.0\n");
        NodeView v = Nodes.viewAt(node);
        String unread = devices + ": not a directory (resolves to kernel/iommu_groups/21/devices); members taken from the functions linking"
                + " to the group";

        assertThat(about(new GroupCheck(), v, "0000:18:00.0")).isEqualTo(new Outcome.Warn("IOMMU group 21's members could not be read: " + unread
                + ": none of them is on a host driver, but a member not seen may be", Fix.advice("run doctor where --sysfs-root is the host's"
                + " /sys, readable; VFIO hands a group out only while no member is on a host driver")));
        assertThat(about(new CompanionsCheck(), v, "0000:18:00.0")).isEqualTo(new Outcome.Warn("not known: IOMMU group 21's members could not"
                + " be read (" + unread + ")", Fix.advice("run doctor where --sysfs-root is the host's /sys, readable")));
        // the other T4's group was read: alone in it, as before
        assertThat(about(new GroupCheck(), v, "0000:af:00.0")).isEqualTo(new Outcome.Ok("IOMMU group 61 is viable (the device is alone in it)"));
    }

    @Test
    void aDeviceOnVfioPciIsOk() {
        assertThat(about(new DriverCheck(), view("doctor-ready"), "0000:18:00.0")).isEqualTo(new Outcome.Ok("on vfio-pci"));
    }

    @Test
    void aGpuOnNouveauWarnsWithTheCommandsThatMoveItNowAndForGood() {
        assertThat(about(new DriverCheck(), view("doctor-iommu-off"), "0000:01:00.0")).isEqualTo(new Outcome.Warn("on nouveau: the host uses it",
                new Fix("move it to vfio-pci to pass it through. For good, vfio-pci claims its ids at boot: every device with them goes to vfio-pci",
                        List.of("modprobe vfio-pci",
                                "echo vfio-pci > /sys/bus/pci/devices/0000:01:00.0/driver_override",
                                "echo 0000:01:00.0 > /sys/bus/pci/devices/0000:01:00.0/driver/unbind",
                                "echo 0000:01:00.0 > /sys/bus/pci/drivers/vfio-pci/bind"),
                        List.of("echo 'options vfio-pci ids=10de:1e87' > /etc/modprobe.d/vfio-pci.conf",
                                "echo 'softdep nouveau pre: vfio-pci' >> /etc/modprobe.d/vfio-pci.conf",
                                "update-initramfs -u    # Debian, Ubuntu; RHEL, Fedora: dracut -f",
                                "# or boot with vfio-pci.ids=10de:1e87 on the kernel command line"))));
    }

    @Test
    void anUnboundGpuNeedsNoUnbindAndNoModprobeWhereVfioPciIsRegistered() {
        assertThat(((Outcome.Warn) about(new DriverCheck(), view("doctor-amd-shared"), "0000:81:00.0")).fix().now()).containsExactly(
                "echo vfio-pci > /sys/bus/pci/devices/0000:81:00.0/driver_override",
                "echo 0000:81:00.0 > /sys/bus/pci/drivers/vfio-pci/bind");
    }

    @Test
    void aGpuOnNvidiaWithMdevTypesHostsVgpus() {
        assertThat(about(new DriverCheck(), view("t4-vgpu"), "0000:3b:00.0")).isEqualTo(new Outcome.Ok("on nvidia, hosting vGPUs (see device.vgpu)"));
    }

    @Test
    void aGpuOnNvidiaForTheHostWarnsThatSomethingMayHoldIt() {
        assertThat(((Outcome.Warn) about(new DriverCheck(), view("t4-numa"), "0000:3b:00.0")).fix().advice()).startsWith(
                "move it to vfio-pci to pass it through; stop what holds it first (nvidia-persistenced, a display server, DCGM).");
    }

    @Test
    void theBootVgaDeviceWarnsThatTheConsoleRunsOnIt(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("config.yaml"), """
                permittedHostDevices:
                  pciHostDevices:
                    - pciVendorSelector: "8086:3e92"
                      resourceName: example.com/igpu
                      externalResourceProvider: true
                """);

        assertThat(about(new DriverCheck(), view("doctor-iommu-off", config), "0000:00:02.0")).isEqualTo(new Outcome.Warn(
                "the boot VGA device: the host's console runs on it (on i915)",
                Fix.advice("pass another GPU through; for this one, make another GPU the firmware's primary display first")));
    }

    @Test
    void aViableGroupWithTheDeviceAloneIsOk() {
        assertThat(about(new GroupCheck(), view("doctor-ready"), "0000:18:00.0"))
                .isEqualTo(new Outcome.Ok("IOMMU group 21 is viable (the device is alone in it)"));
    }

    @Test
    void aGroupWithAMateOnAHostDriverNamesItAndTheCommandsThatMoveIt() {
        assertThat(about(new GroupCheck(), view("doctor-amd-shared"), "0000:41:00.0")).isEqualTo(new Outcome.Warn(
                "IOMMU group 30 is not viable: 0000:41:00.1 (10de:1aef) on snd_hda_intel",
                new Fix("move it to vfio-pci too: VFIO hands a group out only while no member is on a host driver",
                        List.of("echo vfio-pci > /sys/bus/pci/devices/0000:41:00.1/driver_override",
                                "echo 0000:41:00.1 > /sys/bus/pci/devices/0000:41:00.1/driver/unbind",
                                "echo 0000:41:00.1 > /sys/bus/pci/drivers/vfio-pci/bind"),
                        List.of("echo 'options vfio-pci ids=10de:1aef' > /etc/modprobe.d/vfio-pci.conf",
                                "echo 'softdep snd_hda_intel pre: vfio-pci' >> /etc/modprobe.d/vfio-pci.conf",
                                "update-initramfs -u    # Debian, Ubuntu; RHEL, Fedora: dracut -f",
                                "# or boot with vfio-pci.ids=10de:1aef on the kernel command line"))));
    }

    @Test
    void aGroupWithItsBridgesIsViable() {
        assertThat(about(new GroupCheck(), view("doctor-amd-shared"), "0000:c3:00.0"))
                .isEqualTo(new Outcome.Ok("IOMMU group 60 is viable (5 members, none on a host driver)"));
    }

    @Test
    void aDeviceWithoutAGroupPointsAtTheIommu() {
        assertThat(about(new GroupCheck(), view("doctor-iommu-off"), "0000:01:00.0")).isEqualTo(new Outcome.Warn(
                "no IOMMU group: the IOMMU is off", Fix.advice("turn the IOMMU on: see iommu and iommu.cmdline")));
    }

    @Test
    void aDeviceOnVfioPciWhoseGroupNodeIsMissingWarnsToMountDevVfio() {
        assertThat(about(new GroupCheck(), view("t4-numa"), "0000:b2:00.0")).isEqualTo(new Outcome.Warn(
                "no " + Nodes.file("t4-numa", "dev/vfio/65") + ": the group's device node is not visible here",
                Fix.advice("mount the host's /dev/vfio (the kernel makes /dev/vfio/65 when a member binds to vfio-pci)")));
    }

    @Test
    void aCardsOwnFunctionsTravelWithIt() {
        assertThat(about(new CompanionsCheck(), view("workstation"), "0000:01:00.0")).isEqualTo(new Outcome.Ok(
                "its own functions travel with it: 0000:01:00.1 (10de:10f8), 0000:01:00.2 (10de:1ad8), 0000:01:00.3 (10de:1ad9)"));
    }

    @Test
    void aDeviceInAnotherSlotOfTheGroupWarnsThatTheyGoTogether() {
        assertThat(about(new CompanionsCheck(), view("doctor-amd-shared"), "0000:c3:00.0")).isEqualTo(new Outcome.Warn(
                "IOMMU group 60 also holds 0000:c4:00.0 (10de:25b6): one VM gets them all, never one of them alone",
                Fix.advice("to pass them through apart, use slots whose PCIe path isolates them (ACS on the root port or switch);"
                        + " pcie_acs_override only hides the sharing, it does not isolate the devices")));
    }

    @Test
    void aDeviceAloneHasNoCompanions() {
        assertThat(about(new CompanionsCheck(), view("doctor-ready"), "0000:af:00.0")).isEqualTo(new Outcome.Ok("none: alone in IOMMU group 61"));
    }

    @Test
    void theNumaNodeIsShown() {
        assertThat(about(new NumaCheck(), view("doctor-ready"), "0000:af:00.0")).isEqualTo(new Outcome.Ok("NUMA node 1"));
    }

    @Test
    void noNumaNodeOnAHostWithSeveralWarns() {
        assertThat(about(new NumaCheck(), view("doctor-amd-shared"), "0000:81:00.0")).isEqualTo(new Outcome.Warn(
                "no NUMA node on a host with 2: the firmware does not say which one it sits on, so a VM cannot be placed next to it",
                Fix.advice("update the firmware (ACPI _PXM); meanwhile place such VMs by hand")));
    }

    @Test
    void noNumaNodeOnASingleNodeHostIsOk() {
        assertThat(about(new NumaCheck(), view("doctor-iommu-off"), "0000:01:00.0")).isEqualTo(new Outcome.Ok("no NUMA node (a host with one node)"));
    }

    @Test
    void theResetMethodsAreShown() {
        assertThat(about(new ResetCheck(), view("doctor-ready"), "0000:18:00.0")).isEqualTo(new Outcome.Ok("reset_method: flr bus"));
    }

    @Test
    void noResetMethodWarns() {
        assertThat(about(new ResetCheck(), view("doctor-amd-shared"), "0000:81:00.0")).isEqualTo(new Outcome.Warn(
                "no reset method: the kernel cannot reset it between two VMs",
                Fix.advice("give it to one VM at a time for long, or reset the host between users; a firmware or kernel update may add a method")));
    }

    @Test
    void anUnreadableResetMethodWarnsNamingTheFile() {
        assertThat(about(new ResetCheck(), view("doctor-odd"), "0000:18:00.0")).isEqualTo(new Outcome.Warn(
                "cannot read " + Nodes.file("doctor-odd", "sys/bus/pci/devices/0000:18:00.0/reset_method") + ": is a directory, not an attribute file",
                Fix.advice("run doctor where --sysfs-root is the host's /sys")));
    }

    @Test
    void theChecksOfOneDeviceComeTogetherInAddressOrder() {
        assertThat(new DeviceChecks().run(view("doctor-ready"))).extracting(f -> f.check() + " " + f.subject().orElseThrow()).containsExactly(
                "device.driver 0000:18:00.0", "device.group 0000:18:00.0", "device.companions 0000:18:00.0", "device.numa 0000:18:00.0",
                "device.reset 0000:18:00.0", "device.driver 0000:af:00.0", "device.group 0000:af:00.0", "device.companions 0000:af:00.0",
                "device.numa 0000:af:00.0", "device.reset 0000:af:00.0");
    }
}
