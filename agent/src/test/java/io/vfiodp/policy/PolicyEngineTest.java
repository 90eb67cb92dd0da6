package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.Decision.Companion;
import io.vfiodp.policy.Decision.Exposed;
import io.vfiodp.policy.Decision.Skipped;
import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class PolicyEngineTest {

    static final String IDS = """
            10de  NVIDIA Corporation
            \t05be  NF200 PCIe 2.0 switch for Quadro Plex S4 / Tesla S870 / Tesla S1070 / Tesla S2050
            \t10f9  TU106 High Definition Audio Controller
            \t1ada  TU106 USB 3.1 Host Controller
            \t1adb  TU106 USB Type-C UCSI Controller
            \t1af1  GA100 [A100 NVSwitch]
            \t1eb8  TU104GL [Tesla T4]
            \t1f08  TU106 [GeForce RTX 2060 Rev. A]
            \t20b1  GA100 [A100 PCIe 40GB]
            \t20f1  GA100 [A100 PCIe 40GB]
            \t24fa  GA104 [RTX A4500 Embedded GPU ]
            \t26b9  AD102GL [L40S]
            8086  Intel Corporation
            \t1520  I350 Ethernet Controller Virtual Function
            \t3e92  CoffeeLake-S GT2 [UHD Graphics 630]
            """;

    static PciIds ids;

    @BeforeAll
    static void loadIds() throws IOException {
        ids = PciIds.parse("test pci.ids", IDS.getBytes(StandardCharsets.UTF_8));
    }

    static PolicyResult defaults(HostSnapshot s) {
        return PolicyEngine.evaluate(s, Optional.empty(), ids);
    }

    static PolicyResult configured(HostSnapshot s, PermittedHostDevices config) {
        return PolicyEngine.evaluate(s, Optional.of(config), ids);
    }

    static PciAddress a(String address) {
        return PciAddress.parse(address);
    }

    static ResourceName r(String name) {
        return ResourceName.of(name);
    }

    static ExposedDevice pciDevice(String address, int group, int numa, List<String> companions) {
        return new ExposedDevice(address, DeviceKind.PCI, a(address), group, numa, companions.stream().map(PciAddress::parse).toList(),
                Optional.empty(), List.of(), Health.HEALTHY);
    }

    static DesiredResource resource(String name, DeviceKind kind, ExposedDevice... devices) {
        return new DesiredResource(r(name), kind, List.of(devices));
    }

    static Exposed exposed(String name, String... notes) {
        return new Exposed(r(name), List.of(notes));
    }

    @Nested
    class DefaultMode {

        @Test
        void nvidiaGpuOnVfioPciIsExposedUnderItsPciIdsName() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).numa(0);
            PolicyResult result = defaults(b.build());
            assertThat(result.desiredState().resources().values()).containsExactly(
                    resource("nvidia.com/TU104GL_TESLA_T4", DeviceKind.PCI, pciDevice("0000:3b:00.0", 12, 0, List.of())));
            assertThat(result.functions()).containsExactly(java.util.Map.entry(a("0000:3b:00.0"), exposed("nvidia.com/TU104GL_TESLA_T4")));
            assertThat(result.problems()).isEmpty();
        }

        @Test
        void nvgraceVariantDriverCountsAsVfio() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0009:01:00.0", 0x1eb8, 3).driver("nvgrace_gpu_vfio_pci");
            assertThat(defaults(b.build()).functions().get(a("0009:01:00.0"))).isEqualTo(exposed("nvidia.com/TU104GL_TESLA_T4"));
        }

        @Test
        void nvswitchIsExposed() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.fn("0000:07:00.0").id(0x10de, 0x1af1).cls(0x068000).group(40);
            assertThat(defaults(b.build()).desiredState().resources().values()).containsExactly(
                    resource("nvidia.com/GA100_A100_NVSWITCH", DeviceKind.PCI, pciDevice("0000:07:00.0", 40, -1, List.of())));
        }

        @Test
        void deviceCarriesNumaCdevAndUpstreamBridges() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).numa(1).cdev("vfio3").bridges("0000:3a:00.0", "0000:39:01.0");
            ExposedDevice d = PolicyResults.exposed(defaults(b.build()), "0000:3b:00.0").orElseThrow();
            assertThat(d).isEqualTo(new ExposedDevice("0000:3b:00.0", DeviceKind.PCI, a("0000:3b:00.0"), 12, 1, List.of(),
                    Optional.of("vfio3"), List.of(a("0000:3a:00.0"), a("0000:39:01.0")), Health.HEALTHY));
        }

        @Test
        void groupMembersTravelAsCompanionsAndAreNotDevices() {
            SnapshotBuilder b = workstation();
            PolicyResult result = defaults(b.build());
            assertThat(result.desiredState().resources().values()).containsExactly(resource("nvidia.com/TU106_GEFORCE_RTX_2060_REV__A",
                    DeviceKind.PCI, pciDevice("0000:01:00.0", 1, 0, List.of("0000:01:00.1", "0000:01:00.2", "0000:01:00.3"))));
            assertThat(result.functions()).containsExactly(
                    java.util.Map.entry(a("0000:01:00.0"), exposed("nvidia.com/TU106_GEFORCE_RTX_2060_REV__A")),
                    java.util.Map.entry(a("0000:01:00.1"), new Companion(a("0000:01:00.0"))),
                    java.util.Map.entry(a("0000:01:00.2"), new Companion(a("0000:01:00.0"))),
                    java.util.Map.entry(a("0000:01:00.3"), new Companion(a("0000:01:00.0"))));
        }

        @Test
        void bridgeInTheGroupIsNoCompanion() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.fn("0000:00:01.0").id(0x8086, 0x1901).cls(0x060400).driver("pcieport").group(1);
            b.gpu("0000:01:00.0", 0x1eb8, 1);
            PolicyResult result = defaults(b.build());
            assertThat(PolicyResults.exposed(result, "0000:01:00.0").orElseThrow().companions()).isEmpty();
            assertThat(result.functions()).doesNotContainKey(a("0000:00:01.0"));
        }

        @Test
        void companionOnAHostDriverIsNotedBecauseTheGroupIsNotViable() {
            SnapshotBuilder b = workstation();
            b.fn("0000:01:00.1").id(0x10de, 0x10f9).cls(0x040300).driver("snd_hda_intel").group(1);
            PolicyResult result = defaults(b.build());
            assertThat(result.functions().get(a("0000:01:00.0"))).isEqualTo(exposed("nvidia.com/TU106_GEFORCE_RTX_2060_REV__A",
                    "companion 0000:01:00.1 is bound to snd_hda_intel, not a VFIO driver: VFIO refuses IOMMU group 1"
                            + " (not viable) until it is bound to vfio-pci"));
            assertThat(result.functions().get(a("0000:01:00.1"))).isEqualTo(new Companion(a("0000:01:00.0")));
        }

        @Test
        void unboundCompanionNeedsNoNote() {
            SnapshotBuilder b = workstation();
            b.fn("0000:01:00.2").id(0x10de, 0x1ada).cls(0x0c0330).driver(null).group(1);
            assertThat(defaults(b.build()).functions().get(a("0000:01:00.0"))).isEqualTo(exposed("nvidia.com/TU106_GEFORCE_RTX_2060_REV__A"));
        }

        @Test
        void gpuOnTheNvidiaDriverStaysWithTheHost() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).driver("nvidia");
            PolicyResult result = defaults(b.build());
            assertThat(result.desiredState()).isEqualTo(DesiredState.EMPTY);
            assertThat(result.functions().get(a("0000:3b:00.0")))
                    .isEqualTo(new Skipped("bound to nvidia: the host uses it (bind it to vfio-pci to pass it through)"));
        }

        @Test
        void gpuOnNouveauStaysWithTheHost() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).driver("nouveau");
            assertThat(defaults(b.build()).functions().get(a("0000:3b:00.0")))
                    .isEqualTo(new Skipped("bound to nouveau: the host uses it (bind it to vfio-pci to pass it through)"));
        }

        @Test
        void gpuWithoutDriverIsSkipped() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).driver(null);
            assertThat(defaults(b.build()).functions().get(a("0000:3b:00.0")))
                    .isEqualTo(new Skipped("no driver bound; bind it to vfio-pci to pass it through"));
        }

        @Test
        void gpuOnAnotherDriverIsSkipped() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).driver("pci-stub");
            assertThat(defaults(b.build()).functions().get(a("0000:3b:00.0")))
                    .isEqualTo(new Skipped("bound to pci-stub, not a VFIO driver (bind it to vfio-pci to pass it through)"));
        }

        @Test
        void bootVgaStaysWithTheHost() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:01:00.0", 0x1f08, 1).cls(0x030000).bootVga();
            assertThat(defaults(b.build()).functions().get(a("0000:01:00.0"))).isEqualTo(new Skipped("boot VGA: the host console uses it"));
        }

        @Test
        void gpuWithoutIommuGroupIsSkipped() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).noGroup();
            assertThat(defaults(b.build()).functions().get(a("0000:3b:00.0")))
                    .isEqualTo(new Skipped("no IOMMU group (is the IOMMU enabled, e.g. intel_iommu=on?)"));
        }

        @Test
        void otherVendorsOnVfioAreSkippedWithoutConfiguration() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.fn("0000:18:10.0").id(0x8086, 0x1520).cls(0x020000).group(60);
            assertThat(defaults(b.build()).functions().get(a("0000:18:10.0"))).isEqualTo(new Skipped(
                    "vendor 8086 (Intel Corporation) is not NVIDIA: without --config only NVIDIA GPUs and NVSwitches are exposed"
                            + " (permit it with a pciHostDevices entry)"));
        }

        @Test
        void otherVendorsGpuIsListedAndSkipped() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.fn("0000:00:02.0").id(0x8086, 0x3e92).cls(0x030000).driver("i915").group(0).bootVga();
            assertThat(defaults(b.build()).functions().get(a("0000:00:02.0"))).isEqualTo(new Skipped(
                    "vendor 8086 (Intel Corporation) is not NVIDIA: without --config only NVIDIA GPUs and NVSwitches are exposed"
                            + " (permit it with a pciHostDevices entry)"));
        }

        @Test
        void nvidiaFunctionThatIsNoGpuIsSkippedWhenAlone() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.fn("0000:01:00.1").id(0x10de, 0x10f9).cls(0x040300).group(2);
            assertThat(defaults(b.build()).functions().get(a("0000:01:00.1")))
                    .isEqualTo(new Skipped("class 0x040300 is neither a display controller nor an NVSwitch"));
        }

        @Test
        void functionsOfNoInterestGetNoDecision() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.fn("0000:00:1f.3").id(0x8086, 0xa348).cls(0x040300).driver("snd_hda_intel").group(9);
            b.fn("0000:00:14.0").id(0x8086, 0xa36d).cls(0x0c0330).driver(null).group(8);
            assertThat(defaults(b.build()).functions()).isEmpty();
        }

        @Test
        void unknownModelIsNamedByItsHexId() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x2235, 12);
            PolicyResult result = defaults(b.build());
            assertThat(result.functions().get(a("0000:3b:00.0")))
                    .isEqualTo(exposed("nvidia.com/2235", "device id 10de:2235 is not in test pci.ids; named by its id"));
        }

        @Test
        void differentModelsWithOneNameAreKeptApart() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x20b1, 12);
            b.gpu("0000:5e:00.0", 0x20f1, 13);
            PolicyResult result = defaults(b.build());
            assertThat(result.desiredState().resources().keySet())
                    .containsExactly(r("nvidia.com/GA100_A100_PCIE_40GB_20b1"), r("nvidia.com/GA100_A100_PCIE_40GB_20f1"));
            assertThat(result.functions().get(a("0000:3b:00.0"))).isEqualTo(exposed("nvidia.com/GA100_A100_PCIE_40GB_20b1",
                    "'nvidia.com/GA100_A100_PCIE_40GB' is also the name of 10de:20f1 'GA100 [A100 PCIe 40GB]'; added _20b1 to keep them apart"));
        }

        @Test
        void sameModelWithDifferentSubsystemsIsOneResource() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).subsystem(0x10de, 0x12a2);
            b.gpu("0000:5e:00.0", 0x1eb8, 13).subsystem(0x1028, 0x1234);
            PolicyResult result = defaults(b.build());
            assertThat(result.desiredState().resources().values()).containsExactly(resource("nvidia.com/TU104GL_TESLA_T4", DeviceKind.PCI,
                    pciDevice("0000:3b:00.0", 12, -1, List.of()), pciDevice("0000:5e:00.0", 13, -1, List.of())));
        }

        @Test
        void nameWithTrailingUnderscoreIsRepaired() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x24fa, 12);
            assertThat(defaults(b.build()).functions().get(a("0000:3b:00.0"))).isEqualTo(exposed("nvidia.com/GA104_RTX_A4500_EMBEDDED_GPU",
                    "'GA104_RTX_A4500_EMBEDDED_GPU_' is not a valid resource name; using 'GA104_RTX_A4500_EMBEDDED_GPU'"
                            + " (trimmed leading/trailing characters that are not letters or digits)"));
        }

        @Test
        void overlongNameIsShortened() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x05be, 12).cls(0x030000);
            assertThat(defaults(b.build()).functions().get(a("0000:3b:00.0")))
                    .isEqualTo(exposed("nvidia.com/NF200_PCIE_2_0_SWITCH_FOR_QUADRO_PLEX_S4___TESLA_S870_a6072ae5",
                            "'NF200_PCIE_2_0_SWITCH_FOR_QUADRO_PLEX_S4___TESLA_S870___TESLA_S1070___TESLA_S2050' is not a valid"
                                    + " resource name; using 'NF200_PCIE_2_0_SWITCH_FOR_QUADRO_PLEX_S4___TESLA_S870_a6072ae5'"
                                    + " (shortened from 81 to 62 characters (the kubelet allows 63), keeping a hash of the full name)"));
        }

        @Test
        void missingGroupNodeMakesTheDeviceUnhealthy() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12);
            b.gpu("0000:5e:00.0", 0x1eb8, 13);
            b.withoutGroupNode(12);
            PolicyResult result = defaults(b.build());
            assertThat(PolicyResults.exposed(result, "0000:3b:00.0").orElseThrow().health())
                    .isEqualTo(Health.unhealthy("IOMMU group 12: /dev/vfio/12 missing"));
            assertThat(PolicyResults.exposed(result, "0000:5e:00.0").orElseThrow().health()).isEqualTo(Health.HEALTHY);
        }

        @Test
        void mdevOfAnNvidiaParentIsExposedByTypeName() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).driver("nvidia").numa(1).bridges("0000:3a:00.0");
            b.mdev("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", "nvidia-222", "GRID T4-1B", "0000:3b:00.0", 101);
            b.mdev("2c7b6c4d-1e5f-4a6b-8c9d-8e7f6a5b4c3d", "nvidia-223", "GRID T4-2B", "0000:3b:00.0", 102);
            PolicyResult result = defaults(b.build());
            assertThat(result.desiredState().resources().values()).containsExactly(
                    resource("nvidia.com/GRID_T4-1B", DeviceKind.MDEV, new ExposedDevice("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", DeviceKind.MDEV,
                            a("0000:3b:00.0"), 101, 1, List.of(), Optional.empty(), List.of(a("0000:3a:00.0")), Health.HEALTHY)),
                    resource("nvidia.com/GRID_T4-2B", DeviceKind.MDEV, new ExposedDevice("2c7b6c4d-1e5f-4a6b-8c9d-8e7f6a5b4c3d", DeviceKind.MDEV,
                            a("0000:3b:00.0"), 102, 1, List.of(), Optional.empty(), List.of(a("0000:3a:00.0")), Health.HEALTHY)));
            assertThat(result.mdevs()).containsExactly(
                    java.util.Map.entry("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", exposed("nvidia.com/GRID_T4-1B")),
                    java.util.Map.entry("2c7b6c4d-1e5f-4a6b-8c9d-8e7f6a5b4c3d", exposed("nvidia.com/GRID_T4-2B")));
            assertThat(result.functions().get(a("0000:3b:00.0")))
                    .isEqualTo(new Skipped("bound to nvidia: the host uses it (bind it to vfio-pci to pass it through)"));
        }

        @Test
        void mdevWithMissingGroupNodeIsUnhealthy() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).driver("nvidia");
            b.mdev("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", "nvidia-222", "GRID T4-1B", "0000:3b:00.0", 101);
            b.withoutGroupNode(101);
            assertThat(PolicyResults.exposed(defaults(b.build()), "1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c").orElseThrow().health())
                    .isEqualTo(Health.unhealthy("IOMMU group 101: /dev/vfio/101 missing"));
        }

        @Test
        void mdevOfAnotherVendorIsSkipped() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.fn("0000:00:02.0").id(0x8086, 0x3e92).cls(0x030000).driver("i915").group(0);
            b.mdev("3d8c7d5e-2f6a-4b7c-9d0e-9f8a7b6c5d4e", "i915-GVTg_V5_4", "GVTg_V5_4", "0000:00:02.0", 15);
            PolicyResult result = defaults(b.build());
            assertThat(result.mdevs().get("3d8c7d5e-2f6a-4b7c-9d0e-9f8a7b6c5d4e")).isEqualTo(new Skipped(
                    "parent 0000:00:02.0 (vendor 8086 (Intel Corporation)) is not NVIDIA: without --config only NVIDIA vGPUs"
                            + " are exposed (permit the type with a mediatedDevices entry)"));
        }

        @Test
        void mdevWhoseParentTheScanMissedIsSkipped() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.mdev("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", "nvidia-222", "GRID T4-1B", "0000:3b:00.0", 101);
            assertThat(defaults(b.build()).mdevs().get("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c"))
                    .isEqualTo(new Skipped("parent 0000:3b:00.0 is missing from the scan"));
        }

        @Test
        void sriovVgpuVfWithATypeIsExposedByTypeName() {
            PolicyResult result = defaults(l40sHost().build());
            assertThat(result.desiredState().resources().values()).containsExactly(
                    resource("nvidia.com/NVIDIA_L40S-4Q", DeviceKind.PCI, pciDevice("0000:41:00.4", 31, 0, List.of()),
                            pciDevice("0000:41:00.5", 32, 0, List.of())),
                    resource("nvidia.com/NVIDIA_L40S-8Q", DeviceKind.PCI, pciDevice("0000:41:00.6", 33, 0, List.of())));
            assertThat(result.functions()).containsExactly(
                    java.util.Map.entry(a("0000:41:00.0"), new Skipped("bound to nvidia: the host uses it (bind it to vfio-pci to pass it through)")),
                    java.util.Map.entry(a("0000:41:00.4"), exposed("nvidia.com/NVIDIA_L40S-4Q")),
                    java.util.Map.entry(a("0000:41:00.5"), exposed("nvidia.com/NVIDIA_L40S-4Q")),
                    java.util.Map.entry(a("0000:41:00.6"), exposed("nvidia.com/NVIDIA_L40S-8Q")),
                    java.util.Map.entry(a("0000:41:00.7"), new Skipped("SR-IOV vGPU VF without a vGPU (nvidia/current_vgpu_type is 0)")));
        }

        @Test
        void sriovVgpuVfWhoseTypeNameIsUnknownIsNamedByTypeId() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:41:00.0", 0x26b9, 30).driver("nvidia").pf(32);
            b.gpu("0000:41:00.4", 0x26b9, 31).driver("nvidia").physfn("0000:41:00.0");
            b.vgpuVf("0000:41:00.4", "0000:41:00.0", 1153, null);
            assertThat(defaults(b.build()).functions().get(a("0000:41:00.4"))).isEqualTo(exposed("nvidia.com/VGPU_TYPE_1153",
                    "vGPU type 1153 has no name in any creatable_vgpu_types on this host; named by its id"));
        }
    }

    @Nested
    class WithConfiguration {

        @Test
        void onlyExternalResourceProviderEntriesAreExposed() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12);
            b.gpu("0000:5e:00.0", 0x20b1, 13);
            b.gpu("0000:86:00.0", 0x26b9, 14);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10DE:1EB8", "nvidia.com/T4", true),
                    new PciHostDevice("10DE:20B1", "nvidia.com/A100", false)), List.of()));
            assertThat(result.desiredState().resources().values())
                    .containsExactly(resource("nvidia.com/T4", DeviceKind.PCI, pciDevice("0000:3b:00.0", 12, -1, List.of())));
            assertThat(result.functions()).containsExactly(
                    java.util.Map.entry(a("0000:3b:00.0"), exposed("nvidia.com/T4")),
                    java.util.Map.entry(a("0000:5e:00.0"), new Skipped("pciHostDevices[1] (10de:20b1 → nvidia.com/A100) has no"
                            + " externalResourceProvider: true, so KubeVirt's virt-handler serves it")),
                    java.util.Map.entry(a("0000:86:00.0"), new Skipped("no pciHostDevices entry selects 10de:26b9")));
        }

        /*
         * kubevirt/kubevirt pkg/virt-handler/device-manager/pci_device.go discoverPermittedHostPCIDevices
         * (v1.9.0 79d34c1762, unchanged in main d923fdb815): a device its map selects is served only
         * when GetDeviceDriver reads "vfio-pci", or shouldPermitNvidia (nvidia.go) finds an SR-IOV
         * vGPU VF on nvidia with a vGPU type; without a driver link GetDeviceDriver fails and the
         * device is skipped. So a device on a host driver is nobody's.
         */
        @Test
        void aDeviceOnAHostDriverThatVirtHandlersSelectorNamesIsServedByNoOne() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).driver("nvidia");
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10DE:1EB8", "nvidia.com/T4", false)), List.of()));

            assertThat(result.desiredState().resources()).isEmpty();
            assertThat(result.functions().get(a("0000:3b:00.0"))).isEqualTo(new Skipped("pciHostDevices[0] (10de:1eb8 → nvidia.com/T4)"
                    + " has no externalResourceProvider: true, so it is KubeVirt's virt-handler's to serve, but the host driver nvidia"
                    + " holds it: no one serves it; virt-handler would serve it as nvidia.com/T4 once it is on vfio-pci"));
        }

        @Test
        void aNicOnItsHostDriverThatVirtHandlersSelectorNamesIsServedByNoOne() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.fn("0000:5e:00.0").id(0x8086, 0x1521).cls(0x020000).driver("igb").group(20);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("8086:1521", "intel.com/I350", false)), List.of()));

            assertThat(result.functions().get(a("0000:5e:00.0"))).isEqualTo(new Skipped("pciHostDevices[0] (8086:1521 → intel.com/I350)"
                    + " has no externalResourceProvider: true, so it is KubeVirt's virt-handler's to serve, but the host driver igb"
                    + " holds it: no one serves it; virt-handler would serve it as intel.com/I350 once it is on vfio-pci"));
        }

        @Test
        void aDeviceWithoutADriverThatVirtHandlersSelectorNamesIsServedByNoOne() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).driver(null);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10DE:1EB8", "nvidia.com/T4", false)), List.of()));

            assertThat(result.functions().get(a("0000:3b:00.0"))).isEqualTo(new Skipped("pciHostDevices[0] (10de:1eb8 → nvidia.com/T4)"
                    + " has no externalResourceProvider: true, so it is KubeVirt's virt-handler's to serve, but no driver holds it, and"
                    + " virt-handler takes only vfio-pci: no one serves it; virt-handler would serve it as nvidia.com/T4 once it is on"
                    + " vfio-pci"));
        }

        /** pci_device.go compares the driver with "vfio-pci" exactly: a vendor variant of it is not taken. */
        @Test
        void aDeviceOnAVendorVariantOfVfioPciThatVirtHandlersSelectorNamesIsServedByNoOne() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0009:01:00.0", 0x2342, 12).driver("nvgrace_gpu_vfio_pci");
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10DE:2342", "nvidia.com/GH100", false)), List.of()));

            assertThat(result.functions().get(a("0009:01:00.0"))).isEqualTo(new Skipped("pciHostDevices[0] (10de:2342 → nvidia.com/GH100)"
                    + " has no externalResourceProvider: true, so it is KubeVirt's virt-handler's to serve, but it is on"
                    + " nvgrace_gpu_vfio_pci, and virt-handler takes only vfio-pci: no one serves it; virt-handler would serve it as"
                    + " nvidia.com/GH100 once it is on vfio-pci"));
        }

        /** nvidia.go shouldPermitNvidia: an SR-IOV vGPU VF on nvidia with a vGPU type is virt-handler's. */
        @Test
        void anSriovVgpuVfOnNvidiaThatVirtHandlersSelectorNamesIsServedByVirtHandler() {
            PolicyResult result = configured(l40sHost().build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10DE:26B9", "nvidia.com/L40S_VF", false)), List.of()));

            assertThat(result.desiredState().resources()).isEmpty();
            assertThat(result.functions().get(a("0000:41:00.4"))).isEqualTo(new Skipped("pciHostDevices[0] (10de:26b9 →"
                    + " nvidia.com/L40S_VF) has no externalResourceProvider: true, so KubeVirt's virt-handler serves it"));
            assertThat(result.functions().get(a("0000:41:00.0"))).isEqualTo(new Skipped("pciHostDevices[0] (10de:26b9 →"
                    + " nvidia.com/L40S_VF) has no externalResourceProvider: true, so it is KubeVirt's virt-handler's to serve, but the"
                    + " host driver nvidia holds it: no one serves it; virt-handler would serve it as nvidia.com/L40S_VF once it is on"
                    + " vfio-pci"));
        }

        @Test
        void anyVendorCanBePermitted() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.fn("0000:18:10.0").id(0x8086, 0x1520).cls(0x020000).group(60).numa(0);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("8086:1520", "intel.com/I350_VF", true)), List.of()));
            assertThat(result.desiredState().resources().values())
                    .containsExactly(resource("intel.com/I350_VF", DeviceKind.PCI, pciDevice("0000:18:10.0", 60, 0, List.of())));
        }

        @Test
        void selectedFunctionOfNoDisplayClassIsStillListed() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.fn("0000:18:00.0").id(0x8086, 0x1520).cls(0x020000).driver("igb").group(61);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("8086:1520", "intel.com/I350_VF", true)), List.of()));
            assertThat(result.functions().get(a("0000:18:00.0")))
                    .isEqualTo(new Skipped("bound to igb, not a VFIO driver (bind it to vfio-pci to pass it through)"));
        }

        @Test
        void pciSelectorIgnoresCase() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12);
            for (String selector : List.of("10de:1eb8", "10DE:1EB8", "10De:1eB8")) {
                PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                        new PciHostDevice(selector, "nvidia.com/T4", true)), List.of()));
                assertThat(result.functions().get(a("0000:3b:00.0"))).as(selector).isEqualTo(exposed("nvidia.com/T4"));
            }
        }

        @Test
        void mdevSelectorMatchesTheTypeNameWithSpacesAsUnderscoresCaseSensitively() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12).driver("nvidia");
            b.mdev("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", "nvidia-222", "GRID T4-1B", "0000:3b:00.0", 101);
            b.mdev("2c7b6c4d-1e5f-4a6b-8c9d-8e7f6a5b4c3d", "nvidia-223", "GRID T4-2B", "0000:3b:00.0", 102);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(), List.of(
                    new MediatedHostDevice("GRID_T4-1B", "nvidia.com/T4_1B", true),
                    new MediatedHostDevice("grid_t4-2b", "nvidia.com/T4_2B", true))));
            assertThat(result.mdevs()).containsExactly(
                    java.util.Map.entry("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", exposed("nvidia.com/T4_1B")),
                    java.util.Map.entry("2c7b6c4d-1e5f-4a6b-8c9d-8e7f6a5b4c3d", new Skipped("no mediatedDevices entry selects type 'GRID_T4-2B'")));
        }

        @Test
        void mdevOfAnyVendorCanBePermitted() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.fn("0000:00:02.0").id(0x8086, 0x3e92).cls(0x030000).driver("i915").group(0);
            b.mdev("3d8c7d5e-2f6a-4b7c-9d0e-9f8a7b6c5d4e", "i915-GVTg_V5_4", "GVTg_V5_4", "0000:00:02.0", 15);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(), List.of(
                    new MediatedHostDevice("GVTg_V5_4", "intel.com/GVTG_V5_4", true))));
            assertThat(result.mdevs().get("3d8c7d5e-2f6a-4b7c-9d0e-9f8a7b6c5d4e")).isEqualTo(exposed("intel.com/GVTG_V5_4"));
        }

        @Test
        void severalSelectorsShareOneResource() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x20b1, 12);
            b.gpu("0000:5e:00.0", 0x20f1, 13);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10de:20b1", "nvidia.com/A100_40GB", true),
                    new PciHostDevice("10de:20f1", "nvidia.com/A100_40GB", true)), List.of()));
            assertThat(result.desiredState().resources().values()).containsExactly(resource("nvidia.com/A100_40GB", DeviceKind.PCI,
                    pciDevice("0000:3b:00.0", 12, -1, List.of()), pciDevice("0000:5e:00.0", 13, -1, List.of())));
        }

        @Test
        void malformedEntriesAreSkippedWithErrorsAndTheRestStillWork() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12);
            b.gpu("0000:5e:00.0", 0x20b1, 13);
            b.gpu("0000:86:00.0", 0x26b9, 14);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10DE-20B1", "nvidia.com/A100", true),
                    new PciHostDevice("10DE:1EB8", "nvidia.com/T4", true),
                    new PciHostDevice("10DE:26B9", "L40S", true),
                    new PciHostDevice("10DE:26B9", "nvidia.com/L40S_", true)), List.of(
                    new MediatedHostDevice("GRID\tT4-1B", "nvidia.com/T4_1B", true),
                    new MediatedHostDevice("", "nvidia.com/X", true))));
            assertThat(result.desiredState().resources().keySet()).containsExactly(r("nvidia.com/T4"));
            assertThat(result.problems()).containsExactly(
                    PolicyProblem.error("pciHostDevices[0] (pciVendorSelector '10DE-20B1', resourceName 'nvidia.com/A100') skipped:"
                            + " pciVendorSelector must be VVVV:DDDD, the vendor and device id in hex (e.g. 10DE:1EB8)"),
                    PolicyProblem.error("pciHostDevices[2] (pciVendorSelector '10DE:26B9', resourceName 'L40S') skipped:"
                            + " resource name 'L40S' has no domain prefix: write it as <domain>/<name>, e.g. nvidia.com/L40S"),
                    PolicyProblem.error("pciHostDevices[3] (pciVendorSelector '10DE:26B9', resourceName 'nvidia.com/L40S_') skipped:"
                            + " resource name 'nvidia.com/L40S_': name part 'L40S_' must start and end with a letter or digit and"
                            + " contain only letters, digits, '-', '_' and '.'"),
                    PolicyProblem.error("mediatedDevices[0] (mdevNameSelector 'GRID\tT4-1B', resourceName 'nvidia.com/T4_1B') skipped:"
                            + " mdevNameSelector contains a tab or line break, which never matches a type name (write 'GRID_T4-1B')"),
                    PolicyProblem.error("mediatedDevices[1] (mdevNameSelector '', resourceName 'nvidia.com/X') skipped:"
                            + " mdevNameSelector is empty"));
        }

        @Test
        void mdevSelectorWithSpacesMatchesLikeKubeVirt() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:5e:00.0", 0x1eb8, 13).driver("nvidia");
            b.mdev("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", "nvidia-222", "GRID T4-1B", "0000:5e:00.0", 101);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(),
                    List.of(new MediatedHostDevice("GRID T4-1B", "nvidia.com/GRID_T4-1B", true))));
            assertThat(result.problems()).isEmpty();
            assertThat(result.mdevs().get("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c")).isEqualTo(exposed("nvidia.com/GRID_T4-1B"));
        }

        @Test
        void laterDuplicateSelectorWinsWithAWarning() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10DE:1EB8", "nvidia.com/OLD", true),
                    new PciHostDevice("10de:1eb8", "nvidia.com/NEW", true)), List.of()));
            assertThat(result.functions().get(a("0000:3b:00.0"))).isEqualTo(exposed("nvidia.com/NEW"));
            assertThat(result.problems()).containsExactly(PolicyProblem.warning("pciHostDevices[1] repeats the selector '10de:1eb8' of"
                    + " pciHostDevices[0] (10de:1eb8 → nvidia.com/OLD); the later entry wins: pciHostDevices[1] (10de:1eb8 → nvidia.com/NEW)"));
        }

        /*
         * KubeVirt's rule (pkg/virt-handler/device-manager/device_controller.go,
         * updatePermittedHostDevicePlugins): virt-handler puts every pciHostDevices and
         * mediatedDevices entry without externalResourceProvider into its selector map and starts
         * a device plugin for what that map selects, whatever other entries say about the same
         * selector. An external entry for such a selector would have the plugin advertise the same
         * devices under a second name, so one GPU could go to two pods.
         */
        @Test
        void aPciSelectorKubeVirtServesIsNeverServedEvenWhenALaterExternalEntryNamesIt() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10DE:1EB8", "nvidia.com/KUBEVIRT_T4", false),
                    new PciHostDevice("10de:1eb8", "nvidia.com/PLUGIN_T4", true)), List.of()));

            assertThat(result.desiredState().resources()).isEmpty();
            assertThat(result.functions().get(a("0000:3b:00.0"))).isEqualTo(new Skipped("pciHostDevices[0] (10de:1eb8 →"
                    + " nvidia.com/KUBEVIRT_T4) has no externalResourceProvider: true, so KubeVirt's virt-handler serves it"));
            assertThat(result.problems()).containsExactly(PolicyProblem.error("pciHostDevices[1] (10de:1eb8 → nvidia.com/PLUGIN_T4)"
                    + " skipped: pciHostDevices[0] (10de:1eb8 → nvidia.com/KUBEVIRT_T4) names the same selector without"
                    + " externalResourceProvider: true, so KubeVirt's virt-handler serves those devices; serving them too would"
                    + " make one device allocatable under two names (remove one of the two entries)"));
        }

        @Test
        void aPciSelectorKubeVirtServesIsNeverServedEvenWhenAnEarlierExternalEntryNamesIt() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10de:1eb8", "nvidia.com/PLUGIN_T4", true),
                    new PciHostDevice("10DE:1EB8", "nvidia.com/KUBEVIRT_T4", false)), List.of()));

            assertThat(result.desiredState().resources()).isEmpty();
            assertThat(result.problems()).containsExactly(PolicyProblem.error("pciHostDevices[0] (10de:1eb8 → nvidia.com/PLUGIN_T4)"
                    + " skipped: pciHostDevices[1] (10de:1eb8 → nvidia.com/KUBEVIRT_T4) names the same selector without"
                    + " externalResourceProvider: true, so KubeVirt's virt-handler serves those devices; serving them too would"
                    + " make one device allocatable under two names (remove one of the two entries)"));
        }

        @Test
        void anMdevSelectorKubeVirtServesIsNeverServedWhateverTheSpellingOfItsSpaces() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:5e:00.0", 0x1eb8, 13).driver("nvidia");
            b.mdev("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", "nvidia-222", "GRID T4-1B", "0000:5e:00.0", 101);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(), List.of(
                    new MediatedHostDevice("GRID_T4-1B", "nvidia.com/GRID_T4-1B", true),
                    new MediatedHostDevice("GRID T4-1B", "nvidia.com/KUBEVIRT_T4-1B", false))));

            assertThat(result.desiredState().resources()).isEmpty();
            assertThat(result.mdevs().get("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c")).isEqualTo(new Skipped("mediatedDevices[1]"
                    + " (GRID_T4-1B → nvidia.com/KUBEVIRT_T4-1B) has no externalResourceProvider: true, so KubeVirt's virt-handler serves it"));
            assertThat(result.problems()).containsExactly(PolicyProblem.error("mediatedDevices[0] (GRID_T4-1B → nvidia.com/GRID_T4-1B)"
                    + " skipped: mediatedDevices[1] (GRID_T4-1B → nvidia.com/KUBEVIRT_T4-1B) names the same selector without"
                    + " externalResourceProvider: true, so KubeVirt's virt-handler serves those devices; serving them too would"
                    + " make one device allocatable under two names (remove one of the two entries)"));
        }

        /** Two entries virt-handler serves: its map keeps the later one (device_controller.go), and so do we. */
        @Test
        void ofTwoEntriesKubeVirtServesTheLaterWinsAsInVirtHandlersMap() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10DE:1EB8", "nvidia.com/OLD", false),
                    new PciHostDevice("10de:1eb8", "nvidia.com/NEW", false)), List.of()));

            assertThat(result.functions().get(a("0000:3b:00.0"))).isEqualTo(new Skipped("pciHostDevices[1] (10de:1eb8 →"
                    + " nvidia.com/NEW) has no externalResourceProvider: true, so KubeVirt's virt-handler serves it"));
            assertThat(result.problems()).containsExactly(PolicyProblem.warning("pciHostDevices[1] repeats the selector '10de:1eb8' of"
                    + " pciHostDevices[0] (10de:1eb8 → nvidia.com/OLD); the later entry wins: pciHostDevices[1] (10de:1eb8 → nvidia.com/NEW)"));
        }

        @Test
        void oneNameCannotBeBothPciAndMediated() {
            SnapshotBuilder b = new SnapshotBuilder();
            b.gpu("0000:3b:00.0", 0x1eb8, 12);
            b.gpu("0000:5e:00.0", 0x1eb8, 13).driver("nvidia");
            b.mdev("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", "nvidia-222", "GRID T4-1B", "0000:5e:00.0", 101);
            PolicyResult result = configured(b.build(), new PermittedHostDevices(
                    List.of(new PciHostDevice("10DE:1EB8", "nvidia.com/T4", true)),
                    List.of(new MediatedHostDevice("GRID_T4-1B", "nvidia.com/T4", true))));
            assertThat(result.desiredState().resources().values())
                    .containsExactly(resource("nvidia.com/T4", DeviceKind.PCI, pciDevice("0000:3b:00.0", 12, -1, List.of())));
            assertThat(result.problems()).containsExactly(PolicyProblem.error("mediatedDevices[0] (mdevNameSelector 'GRID_T4-1B')"
                    + " skipped: resourceName nvidia.com/T4 is already a PCI resource (pciHostDevices[0]); one resource cannot mix"
                    + " PCI and mediated devices, KubeVirt reads one env var prefix per resource"));
            assertThat(result.mdevs().get("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c"))
                    .isEqualTo(new Skipped("no mediatedDevices entry selects type 'GRID_T4-1B'"));
        }

        @Test
        void sriovVgpuVfsAreSelectedByTheirVendorDevice() {
            PolicyResult result = configured(l40sHost().build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10DE:26B9", "nvidia.com/L40S_VGPU", true)), List.of()));
            assertThat(result.desiredState().resources().values()).containsExactly(resource("nvidia.com/L40S_VGPU", DeviceKind.PCI,
                    pciDevice("0000:41:00.4", 31, 0, List.of()), pciDevice("0000:41:00.5", 32, 0, List.of()),
                    pciDevice("0000:41:00.6", 33, 0, List.of())));
            assertThat(result.functions().get(a("0000:41:00.0")))
                    .isEqualTo(new Skipped("bound to nvidia: the host uses it (bind it to vfio-pci to pass it through)"));
            assertThat(result.functions().get(a("0000:41:00.7")))
                    .isEqualTo(new Skipped("SR-IOV vGPU VF without a vGPU (nvidia/current_vgpu_type is 0)"));
        }

        @Test
        void companionsTravelWithConfiguredDevicesToo() {
            PolicyResult result = configured(workstation().build(), new PermittedHostDevices(List.of(
                    new PciHostDevice("10de:1f08", "nvidia.com/RTX2060", true)), List.of()));
            assertThat(PolicyResults.exposed(result, "0000:01:00.0").orElseThrow().companions())
                    .containsExactly(a("0000:01:00.1"), a("0000:01:00.2"), a("0000:01:00.3"));
            assertThat(result.functions().get(a("0000:01:00.1"))).isEqualTo(new Companion(a("0000:01:00.0")));
        }

        @Test
        void emptyConfigurationExposesNothing() {
            PolicyResult result = configured(workstation().build(), PermittedHostDevices.NONE);
            assertThat(result.desiredState()).isEqualTo(DesiredState.EMPTY);
            assertThat(result.functions().get(a("0000:01:00.0"))).isEqualTo(new Skipped("no pciHostDevices entry selects 10de:1f08"));
        }
    }

    /** A GeForce/Quadro-style card: VGA, HDMI audio, USB and UCSI functions in one group. */
    static SnapshotBuilder workstation() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:01:00.0", 0x1f08, 1).cls(0x030000).numa(0);
        b.fn("0000:01:00.1").id(0x10de, 0x10f9).cls(0x040300).group(1).numa(0);
        b.fn("0000:01:00.2").id(0x10de, 0x1ada).cls(0x0c0330).group(1).numa(0);
        b.fn("0000:01:00.3").id(0x10de, 0x1adb).cls(0x0c8000).group(1).numa(0);
        return b;
    }

    /** An L40S PF on nvidia with four VFs: two carrying 4Q, one 8Q, one empty. */
    static SnapshotBuilder l40sHost() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:41:00.0", 0x26b9, 30).driver("nvidia").pf(32).numa(0);
        for (int fn = 4; fn <= 7; fn++) {
            b.gpu("0000:41:00." + fn, 0x26b9, 27 + fn).driver("nvidia").physfn("0000:41:00.0").numa(0);
        }
        b.vgpuVf("0000:41:00.4", "0000:41:00.0", 1147, "NVIDIA L40S-4Q");
        b.vgpuVf("0000:41:00.5", "0000:41:00.0", 1147, "NVIDIA L40S-4Q");
        b.vgpuVf("0000:41:00.6", "0000:41:00.0", 1148, "NVIDIA L40S-8Q");
        b.vgpuVf("0000:41:00.7", "0000:41:00.0", 0, null);
        return b;
    }
}
