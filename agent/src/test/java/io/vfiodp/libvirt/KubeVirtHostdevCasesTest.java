package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * KubeVirt's own unit-test cases for virt-launcher's hostdev conversion, translated: each test
 * names the KubeVirt test ({@code It(...)}) and file under
 * {@code pkg/virt-launcher/virtwrap/device/hostdevice/} it comes from, feeds the helper what
 * virt-launcher would have (the env the pools were stubbed with, the VMI entries the
 * metadata was made from) and expects the {@code api.HostDevice} values of that test, as the
 * XML libvirt gets. KubeVirt builds its {@code HostDeviceMetaData} with an alias prefix and
 * name; the helper takes them from the VMI, so a {@code gpus[]} entry stands for the GPU list
 * ({@code ua-gpu-}) and a {@code hostDevices[]} entry for the generic list
 * ({@code ua-hostdevice-}); KubeVirt's tests call the shared functions with
 * {@code test_prefix} instead. Their mdev addresses ({@code 123456789-0}) are stubs no kernel
 * names a device with; real UUIDs stand in for them. Each result is also validated and defined
 * by libvirt ({@link LibvirtTools}).
 *
 * <p>Read at kubevirt/kubevirt tag v1.9.0 (commit 79d34c1762) and main (d923fdb815). The tests
 * are the same in both but for {@code hostdev_test.go}'s "PCI display options", which commit
 * ac2ad7de6a ("Default ramfb to enabled when display is set") changed with the code: those are
 * run per release ({@link PciDisplayOptionsOfV190}, {@link PciDisplayOptionsOfMain}); every
 * other case is checked to come out the same for both releases.
 */
class KubeVirtHostdevCasesTest {

    // gpu/addresspool_test.go and generic/addresspool_test.go
    static final String GPU_NAME0 = "gpu_name0";
    static final String GPU_NAME1 = "gpu_name1";
    static final String GPU_RESOURCE0 = "vendor.com/gpu_name0";
    static final String GPU_RESOURCE1 = "vendor.com/gpu_name1";
    static final String HOSTDEV_NAME0 = "hostdev_name0";
    static final String HOSTDEV_NAME1 = "hostdev_name1";
    static final String HOSTDEV_RESOURCE0 = "vendor.com/hostdev_name0";
    static final String HOSTDEV_RESOURCE1 = "vendor.com/hostdev_name1";
    static final String PCI_ADDRESS0 = "0000:81:01.0";
    static final String PCI_ADDRESS1 = "0000:81:01.1";
    // stand-ins for KubeVirt's "123456789-0" / "123456789-1"
    static final String MDEV_ADDRESS0 = "0e2d9c6a-3b1f-4c2e-9a7d-5f8b6c4d3e20";
    static final String MDEV_ADDRESS1 = "0e2d9c6a-3b1f-4c2e-9a7d-5f8b6c4d3e21";

    private final HostdevPlanner planner = new HostdevPlanner();

    /** KubeVirt's ResourceNameToEnvVar: the pool stub for {@code resource} as virt-launcher's env. */
    static String pciVar(String resource) {
        return io.vfiodp.policy.KubeVirtEnv.variableName(io.vfiodp.policy.DeviceKind.PCI, resource);
    }

    static String mdevVar(String resource) {
        return io.vfiodp.policy.KubeVirtEnv.variableName(io.vfiodp.policy.DeviceKind.MDEV, resource);
    }

    static LauncherEnv env(String... nameValue) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) m.put(nameValue[i], nameValue[i + 1]);
        return LauncherEnv.of(m);
    }

    static String entry(String name, String resource) {
        return "{\"name\":\"" + name + "\",\"deviceName\":\"" + resource + "\"}";
    }

    static String entry(String name, String resource, String virtualGpuOptions) {
        return "{\"name\":\"" + name + "\",\"deviceName\":\"" + resource + "\",\"virtualGPUOptions\":" + virtualGpuOptions + "}";
    }

    static VmiDevices vmi(List<String> gpus, List<String> hostDevices) {
        return VmiDevices.parse("{\"spec\":{\"domain\":{\"devices\":{\"gpus\":[" + String.join(",", gpus) + "],\"hostDevices\":["
                + String.join(",", hostDevices) + "]}}}}");
    }

    /**
     * {@code api.HostDevice{Type: pci, Managed: "no", Source: Address{Domain 0x0000, Bus 0x81, Slot 0x01, Function fn}}}
     * as libvirt XML (we also write {@code mode}, which KubeVirt leaves to libvirt's default).
     */
    static String pci(String alias, String function, String display) {
        return "<hostdev mode=\"subsystem\" type=\"pci\" managed=\"no\"" + display + ">\n"
                + "  <source>\n"
                + "    <address domain=\"0x0000\" bus=\"0x81\" slot=\"0x01\" function=\"" + function + "\"/>\n"
                + "  </source>\n"
                + "  <alias name=\"" + alias + "\"/>\n"
                + "</hostdev>\n";
    }

    /** {@code api.HostDevice{Type: mdev, Mode: subsystem, Model: vfio-pci, Source: Address{UUID}}} as libvirt XML. */
    static String mdev(String alias, String uuid, String display) {
        return "<hostdev mode=\"subsystem\" type=\"mdev\" model=\"vfio-pci\"" + display + ">\n"
                + "  <source>\n"
                + "    <address uuid=\"" + uuid + "\"/>\n"
                + "  </source>\n"
                + "  <alias name=\"" + alias + "\"/>\n"
                + "</hostdev>\n";
    }

    static final String NO_DISPLAY = "";
    static final String DISPLAY = " display=\"on\"";
    static final String DISPLAY_RAMFB = " display=\"on\" ramfb=\"on\"";

    /** The hostdev XML the helper writes for {@code env} and {@code vmi}, the same for every release, checked by libvirt. */
    String xml(LauncherEnv env, VmiDevices vmi) {
        String xml = xml(KubeVirtRelease.V1_9, env, vmi);
        for (KubeVirtRelease release : KubeVirtRelease.values()) assertThat(xml(release, env, vmi)).as("KubeVirt " + release.label()).isEqualTo(xml);
        return xml;
    }

    /** The hostdev XML the helper writes for {@code release}, checked by libvirt. */
    String xml(KubeVirtRelease release, LauncherEnv env, VmiDevices vmi) {
        PlanOutcome plan = planner.plan(env, Optional.of(vmi), false, release);
        assertThat(plan).isInstanceOf(PlanOutcome.Planned.class);
        XmlOutcome written = new HostdevXml().elements(((PlanOutcome.Planned) plan).hostdevs());
        assertThat(written).isInstanceOf(XmlOutcome.Written.class);
        String xml = ((XmlOutcome.Written) written).xml();
        LibvirtTools.assertHostdevsAcceptedWithPciDisplay(xml);
        return xml;
    }

    /** The problems the helper finds, the same for every release. */
    List<String> problems(LauncherEnv env, VmiDevices vmi) {
        List<String> problems = problems(KubeVirtRelease.V1_9, env, vmi);
        for (KubeVirtRelease release : KubeVirtRelease.values()) {
            assertThat(problems(release, env, vmi)).as("KubeVirt " + release.label()).isEqualTo(problems);
        }
        return problems;
    }

    List<String> problems(KubeVirtRelease release, LauncherEnv env, VmiDevices vmi) {
        PlanOutcome plan = planner.plan(env, Optional.of(vmi), false, release);
        assertThat(plan).isInstanceOf(PlanOutcome.Failed.class);
        return ((PlanOutcome.Failed) plan).problems();
    }

    /** hostdevice/hostdev_test.go, Describe("HostDevice"), on the generic list (no display defaults). */
    @Nested
    class HostdevTestGo {

        @Test
        void creates2PciDevicesThatShareTheSameResource() {
            assertThat(xml(env(pciVar(HOSTDEV_RESOURCE0), PCI_ADDRESS0 + "," + PCI_ADDRESS1),
                    vmi(List.of(), List.of(entry(HOSTDEV_NAME0, HOSTDEV_RESOURCE0), entry(HOSTDEV_NAME1, HOSTDEV_RESOURCE0)))))
                    .isEqualTo(pci("ua-hostdevice-hostdev_name0", "0x0", NO_DISPLAY) + pci("ua-hostdevice-hostdev_name1", "0x1", NO_DISPLAY));
        }

        @Test
        void creates2PciDevicesThatAreConnectedToDifferentResources() {
            assertThat(xml(env(pciVar(HOSTDEV_RESOURCE0), PCI_ADDRESS0, pciVar(HOSTDEV_RESOURCE1), PCI_ADDRESS1),
                    vmi(List.of(), List.of(entry(HOSTDEV_NAME0, HOSTDEV_RESOURCE0), entry(HOSTDEV_NAME1, HOSTDEV_RESOURCE1)))))
                    .isEqualTo(pci("ua-hostdevice-hostdev_name0", "0x0", NO_DISPLAY) + pci("ua-hostdevice-hostdev_name1", "0x1", NO_DISPLAY));
        }

        @Test
        void failsToCreateADeviceGivenTwoDevicesButOnlyOneAddress() {
            assertThat(problems(env(pciVar(HOSTDEV_RESOURCE0), PCI_ADDRESS0),
                    vmi(List.of(), List.of(entry(HOSTDEV_NAME0, HOSTDEV_RESOURCE0), entry(HOSTDEV_NAME1, HOSTDEV_RESOURCE0)))))
                    .containsExactly("hostDevices[1] 'hostdev_name1' (vendor.com/hostdev_name0): PCI_RESOURCE_VENDOR_COM_HOSTDEV_NAME0 lists"
                            + " 1 device(s) ('0000:81:01.0'), fewer than the VMI entries naming vendor.com/hostdev_name0");
        }

        @Test
        void failsToCreateADeviceGivenBadHostPciAddress() {
            assertThat(problems(env(pciVar(HOSTDEV_RESOURCE0), "0bad0pci0address0"), vmi(List.of(), List.of(entry(HOSTDEV_NAME0, HOSTDEV_RESOURCE0)))))
                    .containsExactly("hostDevices[0] 'hostdev_name0' (vendor.com/hostdev_name0): PCI_RESOURCE_VENDOR_COM_HOSTDEV_NAME0 item 1"
                            + " '0bad0pci0address0' is not a PCI address (expected DDDD:BB:SS.F in hex)");
        }

        @Test
        void creates2MdevDevicesThatShareTheSameResource() {
            assertThat(xml(env(mdevVar(HOSTDEV_RESOURCE0), MDEV_ADDRESS0 + "," + MDEV_ADDRESS1),
                    vmi(List.of(), List.of(entry(HOSTDEV_NAME0, HOSTDEV_RESOURCE0), entry(HOSTDEV_NAME1, HOSTDEV_RESOURCE0)))))
                    .isEqualTo(mdev("ua-hostdevice-hostdev_name0", MDEV_ADDRESS0, NO_DISPLAY)
                            + mdev("ua-hostdevice-hostdev_name1", MDEV_ADDRESS1, NO_DISPLAY));
        }

        /** It("creates 2 PCI devices that are connected to different resources") of its MDEV context: mdevs, in fact. */
        @Test
        void creates2MdevDevicesThatAreConnectedToDifferentResources() {
            assertThat(xml(env(mdevVar(HOSTDEV_RESOURCE0), MDEV_ADDRESS0, mdevVar(HOSTDEV_RESOURCE1), MDEV_ADDRESS1),
                    vmi(List.of(), List.of(entry(HOSTDEV_NAME0, HOSTDEV_RESOURCE0), entry(HOSTDEV_NAME1, HOSTDEV_RESOURCE1)))))
                    .isEqualTo(mdev("ua-hostdevice-hostdev_name0", MDEV_ADDRESS0, NO_DISPLAY)
                            + mdev("ua-hostdevice-hostdev_name1", MDEV_ADDRESS1, NO_DISPLAY));
        }
    }

    /** One PCI gpus[] entry with {@code virtualGpuOptions} (null: none), as {@code release} writes it. */
    String onePciGpu(KubeVirtRelease release, String virtualGpuOptions) {
        String gpu = virtualGpuOptions == null ? entry(GPU_NAME0, GPU_RESOURCE0) : entry(GPU_NAME0, GPU_RESOURCE0, virtualGpuOptions);
        return xml(release, env(pciVar(GPU_RESOURCE0), PCI_ADDRESS0), vmi(List.of(gpu), List.of()));
    }

    /** hostdevice/hostdev_test.go at v1.9.0 (79d34c1762), Context("PCI display options"): a PCI GPU of gpus[]. */
    @Nested
    class PciDisplayOptionsOfV190 {

        String onePciGpu(String virtualGpuOptions) {
            return KubeVirtHostdevCasesTest.this.onePciGpu(KubeVirtRelease.V1_9, virtualGpuOptions);
        }

        @Test
        void doesNotSetDisplayWhenVirtualGpuOptionsIsNil() {
            assertThat(onePciGpu(null)).isEqualTo(pci("ua-gpu-gpu_name0", "0x0", NO_DISPLAY));
        }

        @Test
        void doesNotSetDisplayWhenDisplayIsSetButEnabledIsNil() {
            assertThat(onePciGpu("{\"display\":{}}")).isEqualTo(pci("ua-gpu-gpu_name0", "0x0", NO_DISPLAY));
        }

        @Test
        void doesNotSetDisplayWhenDisplayEnabledIsFalse() {
            assertThat(onePciGpu("{\"display\":{\"enabled\":false}}")).isEqualTo(pci("ua-gpu-gpu_name0", "0x0", NO_DISPLAY));
        }

        /** The case ac2ad7de6a changed: v1.9.0 writes no ramfb when ramFB is absent. */
        @Test
        void setsDisplayOnWhenExplicitlyEnabledWithoutRamfb() {
            assertThat(onePciGpu("{\"display\":{\"enabled\":true}}")).isEqualTo(pci("ua-gpu-gpu_name0", "0x0", DISPLAY));
        }

        @Test
        void doesNotSetRamfbWhenRamFbEnabledIsFalse() {
            assertThat(onePciGpu("{\"display\":{\"enabled\":true,\"ramFB\":{\"enabled\":false}}}"))
                    .isEqualTo(pci("ua-gpu-gpu_name0", "0x0", DISPLAY));
        }

        @Test
        void setsDisplayAndRamfbOnWhenBothExplicitlyEnabled() {
            assertThat(onePciGpu("{\"display\":{\"enabled\":true,\"ramFB\":{\"enabled\":true}}}"))
                    .isEqualTo(pci("ua-gpu-gpu_name0", "0x0", DISPLAY_RAMFB));
        }

        /**
         * It("does not set ramfb when RamFB is present but Enabled is nil") calls the builder with
         * {@code RamFB: &v1.FeatureState{}}, as no admitted VMI carries it: v1.9.0's isRamFBSet
         * says no to that value.
         */
        @Test
        void isRamFbSetOfV190SaysNoToRamFbPresentWithEnabledNil() {
            assertThat(KubeVirtRelease.V1_9.ramfbBesidePciDisplay(VgpuDisplay.RamFb.UNSET)).isFalse();
        }

        /**
         * A VMI that says {@code ramFB: {}} reaches virt-launcher with {@code enabled: true}:
         * virt-api's mutator applies SetDefaults_FeatureState (vmi-mutator.go, defaults.go,
         * zz_generated.defaults.go at v1.9.0), so v1.9.0 writes ramfb for it.
         */
        @Test
        void setsRamfbForAVmiWhoseRamFbIsPresentWithEnabledUnsetAsVirtApiDefaultsIt() {
            assertThat(onePciGpu("{\"display\":{\"enabled\":true,\"ramFB\":{}}}")).isEqualTo(pci("ua-gpu-gpu_name0", "0x0", DISPLAY_RAMFB));
        }
    }

    /** hostdevice/hostdev_test.go at main (d923fdb815, since ac2ad7de6a), Context("PCI display options"). */
    @Nested
    class PciDisplayOptionsOfMain {

        String onePciGpu(String virtualGpuOptions) {
            return KubeVirtHostdevCasesTest.this.onePciGpu(KubeVirtRelease.V1_10, virtualGpuOptions);
        }

        @Test
        void doesNotSetDisplayWhenVirtualGpuOptionsIsNil() {
            assertThat(onePciGpu(null)).isEqualTo(pci("ua-gpu-gpu_name0", "0x0", NO_DISPLAY));
        }

        @Test
        void doesNotSetDisplayWhenDisplayIsSetButEnabledIsNil() {
            assertThat(onePciGpu("{\"display\":{}}")).isEqualTo(pci("ua-gpu-gpu_name0", "0x0", NO_DISPLAY));
        }

        @Test
        void doesNotSetDisplayWhenDisplayEnabledIsFalse() {
            assertThat(onePciGpu("{\"display\":{\"enabled\":false}}")).isEqualTo(pci("ua-gpu-gpu_name0", "0x0", NO_DISPLAY));
        }

        /** The case ac2ad7de6a changed: main writes ramfb when ramFB is absent. */
        @Test
        void setsDisplayOnWhenExplicitlyEnabledWithRamfb() {
            assertThat(onePciGpu("{\"display\":{\"enabled\":true}}")).isEqualTo(pci("ua-gpu-gpu_name0", "0x0", DISPLAY_RAMFB));
        }

        @Test
        void doesNotSetRamfbWhenRamFbEnabledIsFalse() {
            assertThat(onePciGpu("{\"display\":{\"enabled\":true,\"ramFB\":{\"enabled\":false}}}"))
                    .isEqualTo(pci("ua-gpu-gpu_name0", "0x0", DISPLAY));
        }

        @Test
        void setsDisplayAndRamfbOnWhenBothExplicitlyEnabled() {
            assertThat(onePciGpu("{\"display\":{\"enabled\":true,\"ramFB\":{\"enabled\":true}}}"))
                    .isEqualTo(pci("ua-gpu-gpu_name0", "0x0", DISPLAY_RAMFB));
        }

        /** It("does  set ramfb when RamFB is present but Enabled is nil"): main's isRamFBSet, on the builder's input as written. */
        @Test
        void isRamFbSetOfMainSaysYesToRamFbPresentWithEnabledNil() {
            assertThat(KubeVirtRelease.V1_10.ramfbBesidePciDisplay(VgpuDisplay.RamFb.UNSET)).isTrue();
        }

        @Test
        void doesSetRamfbWhenRamFbIsPresentButEnabledIsNil() {
            assertThat(onePciGpu("{\"display\":{\"enabled\":true,\"ramFB\":{}}}")).isEqualTo(pci("ua-gpu-gpu_name0", "0x0", DISPLAY_RAMFB));
        }
    }

    /** hostdevice/hostdev_test.go, Context("MDEV") with CreateMDEVHostDevices(..., true): the GPU list. */
    @Nested
    class MdevDisplayDefaults {

        @Test
        void makesSureThatAVgpuMdevDeviceWillTurnDisplayAndRamfbOn() {
            assertThat(xml(env(mdevVar(GPU_RESOURCE0), MDEV_ADDRESS0 + "," + MDEV_ADDRESS1), vmi(List.of(entry(GPU_NAME0, GPU_RESOURCE0)), List.of())))
                    .isEqualTo(mdev("ua-gpu-gpu_name0", MDEV_ADDRESS0, DISPLAY_RAMFB));
        }

        @Test
        void makesSureThatOnlyOneRamfbIsConfiguredWith2VgpuDevices() {
            assertThat(xml(env(mdevVar(GPU_RESOURCE0), MDEV_ADDRESS0 + "," + MDEV_ADDRESS1),
                    vmi(List.of(entry(GPU_NAME0, GPU_RESOURCE0), entry(GPU_NAME1, GPU_RESOURCE0)), List.of())))
                    .isEqualTo(mdev("ua-gpu-gpu_name0", MDEV_ADDRESS0, DISPLAY_RAMFB) + mdev("ua-gpu-gpu_name1", MDEV_ADDRESS1, NO_DISPLAY));
        }

        @Test
        void makesSureThatOnlyOneRamfbIsConfiguredWith2VgpuDevicesAndAnExplicitVirtualGpuOptionsSetting() {
            assertThat(xml(env(mdevVar(GPU_RESOURCE0), MDEV_ADDRESS0 + "," + MDEV_ADDRESS1), vmi(List.of(entry(GPU_NAME0, GPU_RESOURCE0),
                    entry(GPU_NAME1, GPU_RESOURCE0, "{\"display\":{\"enabled\":true,\"ramFB\":{\"enabled\":true}}}")), List.of())))
                    .isEqualTo(mdev("ua-gpu-gpu_name0", MDEV_ADDRESS0, NO_DISPLAY) + mdev("ua-gpu-gpu_name1", MDEV_ADDRESS1, DISPLAY_RAMFB));
        }

        @Test
        void makesSureThatExplicitlySettingVirtualGpuOptionsCanOverrideTheDefaultDisplayAndRamfbSetting() {
            assertThat(xml(env(mdevVar(GPU_RESOURCE0), MDEV_ADDRESS0 + "," + MDEV_ADDRESS1),
                    vmi(List.of(entry(GPU_NAME0, GPU_RESOURCE0, "{\"display\":{\"enabled\":false}}")), List.of())))
                    .isEqualTo(mdev("ua-gpu-gpu_name0", MDEV_ADDRESS0, NO_DISPLAY));
        }
    }

    /**
     * hostdev.go createMDEVHostDeviceWithDisplay, alike at v1.9.0 and main: {@code if RamFB == nil
     * || *RamFB.Enabled}, a nil dereference for {@code ramFB: {}}. virt-api's defaults make it
     * {@code enabled: true} first, so the helper writes display and ramfb, and warns.
     */
    @Nested
    class MdevWithRamFbPresentAndEnabledUnset {

        VmiDevices named(String gpus) {
            return VmiDevices.parse("{\"metadata\":{\"name\":\"vm1\",\"namespace\":\"team-a\"},\"spec\":{\"domain\":{\"devices\":{\"gpus\":["
                    + gpus + "]}}}}");
        }

        PlanOutcome.Planned plan(KubeVirtRelease release, LauncherEnv env, VmiDevices vmi) {
            return (PlanOutcome.Planned) planner.plan(env, Optional.of(vmi), false, release);
        }

        @Test
        void isWrittenWithDisplayAndRamfbAsForEnabledTrue() {
            assertThat(xml(env(mdevVar(GPU_RESOURCE0), MDEV_ADDRESS0), named(entry(GPU_NAME0, GPU_RESOURCE0, "{\"display\":{\"ramFB\":{}}}"))))
                    .isEqualTo(mdev("ua-gpu-gpu_name0", MDEV_ADDRESS0, DISPLAY_RAMFB));
        }

        @Test
        void warnsOnceNamingTheVmiAndTheFieldForEitherRelease() {
            for (KubeVirtRelease release : KubeVirtRelease.values()) {
                assertThat(plan(release, env(mdevVar(GPU_RESOURCE0), MDEV_ADDRESS0),
                        named(entry(GPU_NAME0, GPU_RESOURCE0, "{\"display\":{\"enabled\":true,\"ramFB\":{}}}"))).warnings())
                        .containsExactly("VMI team-a/vm1: spec.domain.devices.gpus[0].virtualGPUOptions.display.ramFB is {} (enabled unset)"
                                + " on an mdev vGPU; virt-launcher (v1.9.0 and main) would crash on it, dereferencing the unset enabled"
                                + " (hostdev.go, createMDEVHostDeviceWithDisplay). virt-api sets enabled: true when it admits a VMI, so this"
                                + " one did not pass its defaults; written with display and ramfb, as for enabled: true");
            }
        }

        @Test
        void aPciDeviceWithTheSameFieldIsNoCrashAndGetsNoWarning() {
            assertThat(plan(KubeVirtRelease.V1_9, env(pciVar(GPU_RESOURCE0), PCI_ADDRESS0),
                    named(entry(GPU_NAME0, GPU_RESOURCE0, "{\"display\":{\"enabled\":true,\"ramFB\":{}}}"))).warnings()).isEmpty();
        }

        /** createMDEVHostDeviceWithDisplay reads ramFB only when the display is not disabled. */
        @Test
        void aDisabledDisplayIsNoCrashAndGetsNoWarning() {
            assertThat(plan(KubeVirtRelease.V1_9, env(mdevVar(GPU_RESOURCE0), MDEV_ADDRESS0),
                    named(entry(GPU_NAME0, GPU_RESOURCE0, "{\"display\":{\"enabled\":false,\"ramFB\":{}}}"))).warnings()).isEmpty();
        }
    }

    /** hostdevice/gpu/hostdev_test.go, Describe("GPU HostDevice"). */
    @Nested
    class GpuHostdevTestGo {

        @Test
        void failsToCreateDevicesGivenNoResource() {
            assertThat(problems(env(), vmi(List.of(entry(GPU_NAME0, GPU_RESOURCE0)), List.of()))).containsExactly(
                    "gpus[0] 'gpu_name0' (vendor.com/gpu_name0): neither PCI_RESOURCE_VENDOR_COM_GPU_NAME0 nor"
                            + " MDEV_PCI_RESOURCE_VENDOR_COM_GPU_NAME0 is set in the environment");
        }

        @Test
        void failsToCreateDeviceGivenTwoDevicesButOnlyOneAddress() {
            assertThat(problems(env(pciVar(GPU_RESOURCE0), PCI_ADDRESS0, mdevVar(GPU_RESOURCE1), MDEV_ADDRESS1),
                    vmi(List.of(entry(GPU_NAME0, GPU_RESOURCE0), entry(GPU_NAME1, GPU_RESOURCE0)), List.of()))).containsExactly(
                    "gpus[1] 'gpu_name1' (vendor.com/gpu_name0): PCI_RESOURCE_VENDOR_COM_GPU_NAME0 lists 1 device(s) ('0000:81:01.0'),"
                            + " fewer than the VMI entries naming vendor.com/gpu_name0");
        }

        @Test
        void createsTwoDevicesPciAndMdev() {
            assertThat(xml(env(pciVar(GPU_RESOURCE0), PCI_ADDRESS0, mdevVar(GPU_RESOURCE1), MDEV_ADDRESS1),
                    vmi(List.of(entry(GPU_NAME0, GPU_RESOURCE0), entry(GPU_NAME1, GPU_RESOURCE1)), List.of())))
                    .isEqualTo(pci("ua-gpu-gpu_name0", "0x0", NO_DISPLAY) + mdev("ua-gpu-gpu_name1", MDEV_ADDRESS1, DISPLAY_RAMFB));
        }

        @Test
        void createsMdevWithDisplayOptionTurnedOff() {
            assertThat(xml(env(pciVar(GPU_RESOURCE0), PCI_ADDRESS0, mdevVar(GPU_RESOURCE1), MDEV_ADDRESS1),
                    vmi(List.of(entry(GPU_NAME1, GPU_RESOURCE1, "{\"display\":{\"enabled\":false}}")), List.of())))
                    .isEqualTo(mdev("ua-gpu-gpu_name1", MDEV_ADDRESS1, NO_DISPLAY));
        }

        @Test
        void createsMdevWithDisplayRamFbOptionTurnedOff() {
            assertThat(xml(env(pciVar(GPU_RESOURCE0), PCI_ADDRESS0, mdevVar(GPU_RESOURCE1), MDEV_ADDRESS1),
                    vmi(List.of(entry(GPU_NAME1, GPU_RESOURCE1, "{\"display\":{\"ramFB\":{\"enabled\":false}}}")), List.of())))
                    .isEqualTo(mdev("ua-gpu-gpu_name1", MDEV_ADDRESS1, DISPLAY));
        }

        @Test
        void createsMdevWithEnabledDisplayAndRamfbByDefault() {
            assertThat(xml(env(pciVar(GPU_RESOURCE0), PCI_ADDRESS0, mdevVar(GPU_RESOURCE1), MDEV_ADDRESS1),
                    vmi(List.of(entry(GPU_NAME1, GPU_RESOURCE1, "{\"display\":{}}")), List.of())))
                    .isEqualTo(mdev("ua-gpu-gpu_name1", MDEV_ADDRESS1, DISPLAY_RAMFB));
        }
    }

    /** hostdevice/generic/hostdev_test.go, Describe("Generic HostDevice"). */
    @Nested
    class GenericHostdevTestGo {

        @Test
        void failsToCreateDevicesGivenNoResource() {
            assertThat(problems(env(), vmi(List.of(), List.of(entry(HOSTDEV_NAME0, HOSTDEV_RESOURCE0))))).containsExactly(
                    "hostDevices[0] 'hostdev_name0' (vendor.com/hostdev_name0): neither PCI_RESOURCE_VENDOR_COM_HOSTDEV_NAME0 nor"
                            + " MDEV_PCI_RESOURCE_VENDOR_COM_HOSTDEV_NAME0 is set in the environment");
        }

        @Test
        void createsTwoDevicesPciAndMdev() {
            assertThat(xml(env(pciVar(HOSTDEV_RESOURCE0), PCI_ADDRESS0, mdevVar(HOSTDEV_RESOURCE1), MDEV_ADDRESS1),
                    vmi(List.of(), List.of(entry(HOSTDEV_NAME0, HOSTDEV_RESOURCE0), entry(HOSTDEV_NAME1, HOSTDEV_RESOURCE1)))))
                    .isEqualTo(pci("ua-hostdevice-hostdev_name0", "0x0", NO_DISPLAY) + mdev("ua-hostdevice-hostdev_name1", MDEV_ADDRESS1, NO_DISPLAY));
        }
    }

    /** hostdevice/addresspool_test.go, Describe("Address Pool"). */
    @Nested
    class AddressPoolTestGo {

        @Test
        void failsToPopAnAddressGivenNoAddressesForResource() {
            assertThat(problems(env(pciVar(HOSTDEV_RESOURCE0), ""), vmi(List.of(), List.of(entry(HOSTDEV_NAME0, HOSTDEV_RESOURCE0)))))
                    .containsExactly("hostDevices[0] 'hostdev_name0' (vendor.com/hostdev_name0): PCI_RESOURCE_VENDOR_COM_HOSTDEV_NAME0 lists"
                            + " 0 device(s) (''), fewer than the VMI entries naming vendor.com/hostdev_name0");
        }

        @Test
        void succeedsToPop2AddressesFromTwoResources() {
            assertThat(xml(env(pciVar(HOSTDEV_RESOURCE0), PCI_ADDRESS0, pciVar(HOSTDEV_RESOURCE1), PCI_ADDRESS1),
                    vmi(List.of(), List.of(entry(HOSTDEV_NAME1, HOSTDEV_RESOURCE1), entry(HOSTDEV_NAME0, HOSTDEV_RESOURCE0)))))
                    .isEqualTo(pci("ua-hostdevice-hostdev_name1", "0x1", NO_DISPLAY) + pci("ua-hostdevice-hostdev_name0", "0x0", NO_DISPLAY));
        }
    }

    /**
     * virtwrap/converter/compute/host_device_test.go, "should preserve the order of input devices",
     * with converter.go's NewHostDeviceDomainConfigurator(GenericHostDevices, GPUHostDevices, ...):
     * the generic list's hostdevs come first.
     */
    @Test
    void hostDeviceDomainConfiguratorKeepsTheGenericListBeforeTheGpuList() {
        assertThat(xml(env(pciVar(HOSTDEV_RESOURCE0), PCI_ADDRESS0, mdevVar(GPU_RESOURCE0), MDEV_ADDRESS0),
                vmi(List.of(entry("gpu0", GPU_RESOURCE0)), List.of(entry("generic0", HOSTDEV_RESOURCE0)))))
                .isEqualTo(pci("ua-hostdevice-generic0", "0x0", NO_DISPLAY) + mdev("ua-gpu-gpu0", MDEV_ADDRESS0, DISPLAY_RAMFB));
    }

    /**
     * virt-api/webhooks/validating-webhook/admitters/vmi-create-admitter_test.go, "rejecting more
     * than one vGPU display that enables ramfb" and "allowing at most one vGPU display that
     * enables ramfb" (added in main by 93e8f0e299): what KubeVirt refuses the helper refuses,
     * what it admits the helper writes. Alike for v1.9.0: its countConfiguredMDEVRamFBs does not
     * count {@code ramFB: {}}, but for a VMI it runs after virt-api's mutator has made that
     * {@code enabled: true} (mutating-webhook/mutators/vmi-mutator.go, pkg/defaults/defaults.go),
     * as 93e8f0e299's message says: v1.9.0 let such templates of VMs and VMIRSs through and then
     * refused the VMI made from them.
     */
    @Nested
    class RamfbAdmission {

        VmiDevices twoVgpus(String display0, String display1) {
            return vmi(List.of(entry("gpu0", GPU_RESOURCE0, "{\"display\":" + display0 + "}"),
                    entry("gpu1", GPU_RESOURCE1, "{\"display\":" + display1 + "}")), List.of());
        }

        LauncherEnv twoMdevResources() {
            return env(mdevVar(GPU_RESOURCE0), MDEV_ADDRESS0, mdevVar(GPU_RESOURCE1), MDEV_ADDRESS1);
        }

        @Test
        void rejectsTwoVgpusWhoseRamFbIsPresentWithEnabledUnset() {
            assertThat(problems(twoMdevResources(), twoVgpus("{\"enabled\":true,\"ramFB\":{}}", "{\"enabled\":true,\"ramFB\":{}}")))
                    .containsExactly("gpus[0] 'gpu0' (vendor.com/gpu_name0) and gpus[1] 'gpu1' (vendor.com/gpu_name1) each enable a display"
                            + " with ramfb (virtualGPUOptions.display with enabled and ramFB.enabled unset or true); KubeVirt refuses such a"
                            + " VMI and libvirt allows one ramfb per VM");
        }

        @Test
        void rejectsAnUnsetRamFbAlongsideAnAbsentRamFb() {
            assertThat(problems(twoMdevResources(), twoVgpus("{\"enabled\":true,\"ramFB\":{}}", "{\"enabled\":true}"))).hasSize(1);
        }

        @Test
        void rejectsAnUnsetRamFbAlongsideAnExplicitlyEnabledRamFb() {
            assertThat(problems(twoMdevResources(), twoVgpus("{\"enabled\":true,\"ramFB\":{}}", "{\"enabled\":true,\"ramFB\":{\"enabled\":true}}")))
                    .hasSize(1);
        }

        @Test
        void rejectsTwoUnsetDisplaysAsTheirRamFbIsCounted() {
            assertThat(problems(twoMdevResources(), twoVgpus("{\"ramFB\":{}}", "{\"ramFB\":{}}"))).hasSize(1);
        }

        @Test
        void allowsASingleVgpuWhoseRamFbIsPresentWithEnabledUnset() {
            assertThat(xml(env(mdevVar(GPU_RESOURCE0), MDEV_ADDRESS0),
                    vmi(List.of(entry("gpu0", GPU_RESOURCE0, "{\"display\":{\"enabled\":true,\"ramFB\":{}}}")), List.of())))
                    .isEqualTo(mdev("ua-gpu-gpu0", MDEV_ADDRESS0, DISPLAY_RAMFB));
        }

        @Test
        void allowsTwoVgpusWithRamFbExplicitlyDisabled() {
            String noRamfb = "{\"enabled\":true,\"ramFB\":{\"enabled\":false}}";
            assertThat(xml(twoMdevResources(), twoVgpus(noRamfb, noRamfb)))
                    .isEqualTo(mdev("ua-gpu-gpu0", MDEV_ADDRESS0, DISPLAY) + mdev("ua-gpu-gpu1", MDEV_ADDRESS1, DISPLAY));
        }

        @Test
        void allowsDisabledDisplaysEvenWithRamFbEnabled() {
            String off = "{\"enabled\":false,\"ramFB\":{\"enabled\":true}}";
            assertThat(xml(twoMdevResources(), twoVgpus(off, off)))
                    .isEqualTo(mdev("ua-gpu-gpu0", MDEV_ADDRESS0, NO_DISPLAY) + mdev("ua-gpu-gpu1", MDEV_ADDRESS1, NO_DISPLAY));
        }

        @Test
        void allowsDisabledDisplaysWithRamFbUnsetOrAbsent() {
            assertThat(xml(twoMdevResources(), twoVgpus("{\"enabled\":false,\"ramFB\":{}}", "{\"enabled\":false}")))
                    .isEqualTo(mdev("ua-gpu-gpu0", MDEV_ADDRESS0, NO_DISPLAY) + mdev("ua-gpu-gpu1", MDEV_ADDRESS1, NO_DISPLAY));
        }
    }
}
