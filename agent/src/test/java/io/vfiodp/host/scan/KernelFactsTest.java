package io.vfiodp.host.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import io.vfiodp.host.fixtures.SysfsFixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KernelFactsTest {

    private static final Map<String, List<String>> MODULES = Map.of("vfio", List.of(), "vfio_iommu_type1", List.of("allow_unsafe_interrupts"),
            "iommufd", List.of("allow_unsafe_interrupts"));
    private static final Set<String> CONFIG = Set.of("CONFIG_MODULES", "CONFIG_VFIO", "CONFIG_VFIO_PCI", "CONFIG_IOMMUFD");

    private static Path root(String node) {
        return SysfsFixtures.committedRoot().resolve(node);
    }

    private static KernelFacts read(String node) {
        return KernelFactsReader.read(root(node).resolve("sys"), root(node).resolve("proc"), Optional.of(root(node).resolve("boot")), MODULES,
                CONFIG);
    }

    private static String file(String node, String relative) {
        return root(node).resolve(relative).toString();
    }

    @Test
    void intelUnitsAreListedWithTheirExtendedCapabilities() {
        assertThat(read("doctor-ready").iommuUnits()).isEqualTo(new Reading.Found<>(List.of(
                new KernelFacts.IommuUnit("dmar0", Optional.of("intel-iommu"), new Reading.Found<>(0xf020dfL)),
                new KernelFacts.IommuUnit("dmar1", Optional.of("intel-iommu"), new Reading.Found<>(0xf020dfL)))));
    }

    @Test
    void anAmdUnitCarriesNoIntelRegister() {
        assertThat(read("doctor-amd-shared").iommuUnits().known().orElseThrow()).containsExactly(new KernelFacts.IommuUnit("ivhd0",
                Optional.of("amd-iommu"), new Reading.Absent<>(file("doctor-amd-shared", "sys/class/iommu/ivhd0/intel-iommu/ecap"))));
    }

    @Test
    void groupsAreCountedAndAnIommuOffNodeHasNone() {
        assertThat(read("doctor-ready").iommuGroups()).isEqualTo(new Reading.Found<>(5));
        // the kernel keeps an empty kernel/iommu_groups; git keeps no empty directory, so the fixture may lack it
        assertThat(read("doctor-iommu-off").iommuGroups().known().orElse(0)).isZero();
        assertThat(read("doctor-iommu-off").iommuUnits()).isEqualTo(new Reading.Absent<>(file("doctor-iommu-off", "sys/class/iommu")));
    }

    @Test
    void firmwareTablesNumaNodesAndDriversAreNamed() {
        KernelFacts facts = read("doctor-iommu-off");

        assertThat(facts.acpiTables()).isEqualTo(new Reading.Found<>(new TreeSet<>(List.of("APIC", "DMAR", "FACP", "HPET", "MCFG"))));
        assertThat(facts.numaNodes()).isEqualTo(new Reading.Found<>(1));
        assertThat(facts.pciDrivers().known().orElseThrow()).containsExactly("i915", "nouveau", "nvidia-gpu", "pcieport", "skl_uncore",
                "snd_hda_intel", "xhci_hcd");
    }

    @Test
    void modulesAreFoundWithTheParametersAskedForAndAbsentWhenNotLoaded() {
        KernelFacts ready = read("doctor-ready");

        assertThat(ready.module("vfio_iommu_type1")).isEqualTo(new Reading.Found<>(new KernelFacts.KernelModule("vfio_iommu_type1", false,
                new java.util.TreeMap<>(Map.of("allow_unsafe_interrupts", new Reading.Found<>("N"))))));
        assertThat(read("doctor-iommu-off").module("vfio")).isEqualTo(new Reading.Absent<>(file("doctor-iommu-off", "sys/module/vfio")));
    }

    @Test
    void theCommandLineAndTheCpuVendorComeFromProc() {
        KernelFacts facts = read("doctor-ready");

        assertThat(facts.commandLine()).isEqualTo(new Reading.Found<>(
                "BOOT_IMAGE=/vmlinuz-6.8.0-48-generic root=/dev/mapper/ubuntu--vg-ubuntu--lv ro intel_iommu=on iommu=pt"));
        assertThat(facts.cpuVendor()).isEqualTo(new Reading.Found<>("GenuineIntel"));
    }

    @Test
    void remappedInterruptsAreTheFirstIrChip() {
        assertThat(read("doctor-ready").interrupts())
                .isEqualTo(new Reading.Found<>(new KernelFacts.InterruptChips(Optional.of("IR-IO-APIC"), Optional.empty())));
    }

    @Test
    void interruptsWithoutRemappingNameTheirFirstDirectChip() {
        assertThat(read("doctor-iommu-off").interrupts())
                .isEqualTo(new Reading.Found<>(new KernelFacts.InterruptChips(Optional.empty(), Optional.of("IO-APIC"))));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "'  0:         36          0   IR-IO-APIC    2-edge      timer'|IR-IO-APIC",
        "' 26:          0          0  IR-PCI-MSIX-0000:00:04.0    0-edge      virtio0-config'|IR-PCI-MSIX",
        "' 27:          5  ITS-MSI 524288 Edge      eth0'|ITS-MSI",
        "'122:   1 PCI-MSI 512000-edge      ahci[0000:00:17.0]'|PCI-MSI",
        "'NMI:          0          0   Non-maskable interrupts'|",
        "'           CPU0       CPU1'|",
        "'ERR:          0'|",
    })
    void theChipOfAnInterruptLineIsItsFirstWordAfterTheCounts(String line, String chip) {
        assertThat(KernelFactsReader.chip(line)).isEqualTo(chip);
    }

    @Test
    void oddFilesAreUnreadableFactsNamingTheFile() {
        KernelFacts facts = read("doctor-odd");

        assertThat(facts.unreadable()).containsExactly(
                new Reading.Unreadable<Long>(file("doctor-odd", "sys/class/iommu/dmar0"),
                        "dangling link (devices/virtual/iommu/dmar9 does not exist)"),
                new Reading.Unreadable<Long>(file("doctor-odd", "sys/class/iommu/dmar1/intel-iommu/ecap"),
                        "not a hexadecimal register value: 'zz'"),
                new Reading.Unreadable<Object>(file("doctor-odd", "sys/firmware/acpi/tables"), "link leads outside the scanned root"),
                new Reading.Unreadable<Integer>(file("doctor-odd", "sys/devices/system/node"), "not a directory"),
                new Reading.Unreadable<String>(file("doctor-odd", "proc/cmdline"), "not UTF-8 text"),
                new Reading.Unreadable<Object>(file("doctor-odd", "proc/interrupts"), "is a directory, not a file"),
                new Reading.Unreadable<Object>(file("doctor-odd", "proc/config.gz"), "not gzip data"));
        assertThat(facts.cpuVendor()).isEqualTo(new Reading.Absent<>(file("doctor-odd", "proc/cpuinfo")));
    }

    @Test
    void aGuestShowsTheCpusHypervisorFlagAndBareMetalItsDmiWithout() {
        KernelFacts.Machine vm = read("doctor-vm-firecracker").machine();
        KernelFacts.Machine metal = read("doctor-ready").machine();

        assertThat(vm.hypervisorFlag()).isEqualTo(new Reading.Found<>(true));
        assertThat(vm.dmi()).containsEntry("sys_vendor", new Reading.Absent<>(file("doctor-vm-firecracker", "sys/class/dmi/id/sys_vendor")));
        assertThat(metal.hypervisorFlag()).isEqualTo(new Reading.Found<>(false));
        assertThat(metal.dmi()).containsEntry("sys_vendor", new Reading.Found<>("Supermicro"))
                .containsEntry("product_name", new Reading.Found<>("SYS-221H-TNR"));
        assertThat(metal.hypervisorType()).isEqualTo(new Reading.Absent<>(file("doctor-ready", "sys/hypervisor/type")));
    }

    @Test
    void aKernelWithoutModulesShowsItsConfigurationFromProcAndNoModuleList() {
        KernelFacts.Build build = read("doctor-vm-firecracker").build();

        assertThat(build.release()).isEqualTo(new Reading.Found<>("6.18.0"));
        // /proc/config.gz, inflated; the options not set are not in it
        assertThat(build.config()).isEqualTo(new Reading.Found<>(new KernelFacts.KernelConfig(file("doctor-vm-firecracker", "proc/config.gz"),
                new java.util.TreeMap<>())));
        assertThat(build.moduleList()).isEqualTo(new Reading.Absent<>(file("doctor-vm-firecracker", "proc/modules")));
        assertThat(build.modulesDisabled()).isEqualTo(new Reading.Absent<>(file("doctor-vm-firecracker", "proc/sys/kernel/modules_disabled")));
    }

    @Test
    void withoutProcConfigGzTheConfigurationComesFromBootByTheRelease() {
        KernelFacts.Build build = read("doctor-iommu-off").build();

        assertThat(build.config()).isEqualTo(new Reading.Found<>(new KernelFacts.KernelConfig(
                file("doctor-iommu-off", "boot/config-5.15.0-119-generic"),
                new java.util.TreeMap<>(Map.of("CONFIG_MODULES", "y", "CONFIG_VFIO", "m", "CONFIG_VFIO_PCI", "m")))));
        assertThat(build.moduleList()).isEqualTo(new Reading.Found<>(true));
        assertThat(build.modulesDisabled()).isEqualTo(new Reading.Found<>("0"));
    }

    @Test
    void aConfigurationExposedNowhereIsAbsentNamingBothFiles() {
        assertThat(read("doctor-no-vfio").build().config()).isEqualTo(new Reading.Absent<>(file("doctor-no-vfio", "proc/config.gz") + " and "
                + file("doctor-no-vfio", "boot/config-6.6.52-custom")));
        // serve looks at /proc only
        assertThat(KernelFactsReader.read(root("doctor-no-vfio").resolve("sys"), root("doctor-no-vfio").resolve("proc"), Optional.empty(), MODULES,
                CONFIG).build().config()).isEqualTo(new Reading.Absent<>(file("doctor-no-vfio", "proc/config.gz")));
    }

    @Test
    void aConfigGzCutShortIsUnreadableNamingIt(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write("CONFIG_MODULES=y\nCONFIG_VFIO=m\n".repeat(200).getBytes(StandardCharsets.US_ASCII));
        }
        byte[] bytes = gz.toByteArray();
        Files.createDirectories(dir.resolve("proc"));
        Files.write(dir.resolve("proc/config.gz"), Arrays.copyOf(bytes, bytes.length / 2));

        assertThat(KernelFactsReader.read(dir.resolve("sys"), dir.resolve("proc"), Optional.empty(), MODULES, CONFIG).build().config())
                .isEqualTo(new Reading.Unreadable<>(dir.resolve("proc/config.gz").toString(), "gzip data cut short"));
    }

    @Test
    void aModuleWithoutInitstateIsBuiltIn() {
        KernelFacts facts = KernelFactsReader.read(root("doctor-no-vfio").resolve("sys"), root("doctor-no-vfio").resolve("proc"), Optional.empty(),
                Map.of("pcie_aspm", List.of("policy")), CONFIG);

        assertThat(facts.module("pcie_aspm").known().orElseThrow().builtIn()).isTrue();
        assertThat(read("doctor-ready").module("vfio").known().orElseThrow().builtIn()).isFalse();
    }

    @Test
    void aRootThatDoesNotExistMakesEveryFactUnreadableNamingIt() {
        KernelFacts facts = KernelFactsReader.read(Path.of("/nonexistent/sys"), Path.of("/nonexistent/proc"), Optional.empty(), MODULES,
                CONFIG);

        assertThat(facts.iommuGroups()).isEqualTo(new Reading.Unreadable<>("/nonexistent/sys", "does not exist"));
        assertThat(facts.commandLine()).isEqualTo(new Reading.Unreadable<>("/nonexistent/proc", "does not exist"));
    }

    @Test
    void aCommandLineThisProcessMayNotReadIsUnreadableNamingIt() throws Exception {
        try (CorruptedNode node = CorruptedNode.of("doctor-ready",
                List.of(new TreeCorruption("proc/cmdline", TreeCorruption.Kind.PERMISSION_DENIED, 0)))) {
            KernelFacts facts = UnprivilegedThread.call(
                    () -> KernelFactsReader.read(node.sys(), node.node().resolve("proc"), Optional.empty(), MODULES, CONFIG), Duration.ofSeconds(30));

            assertThat(facts.commandLine()).isEqualTo(new Reading.Unreadable<>(node.node().resolve("proc/cmdline").toString(),
                    "cannot read: permission denied"));
        }
    }
}
