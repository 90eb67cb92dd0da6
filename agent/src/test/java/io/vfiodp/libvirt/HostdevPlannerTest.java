package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.PciAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class HostdevPlannerTest {

    static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    static final String T4_VAR = "PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4";
    static final String A10 = "nvidia.com/GA102GL_A10";
    static final String A10_VAR = "PCI_RESOURCE_NVIDIA_COM_GA102GL_A10";
    static final String VGPU = "nvidia.com/GRID_T4-1Q";
    static final String VGPU_VAR = "MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q";
    static final String UUID1 = "4b20d080-1b54-4048-85b3-a6a62d165c01";
    static final String UUID2 = "4b20d080-1b54-4048-85b3-a6a62d165c02";
    static final String UUID3 = "4b20d080-1b54-4048-85b3-a6a62d165c03";

    private final HostdevPlanner planner = new HostdevPlanner();
    /** main's rules; where releases differ, KubeVirtHostdevCasesTest and KubeVirtReleaseProperties hold both. */
    private static final KubeVirtRelease RELEASE = KubeVirtRelease.V1_10;

    static LauncherEnv env(String... nameValue) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) m.put(nameValue[i], nameValue[i + 1]);
        return LauncherEnv.of(m);
    }

    /** A VMI with the given gpus[] and hostDevices[] JSON arrays. */
    static VmiDevices vmi(String gpus, String hostDevices) {
        return VmiDevices.parse("{\"spec\":{\"domain\":{\"devices\":{\"gpus\":" + gpus + ",\"hostDevices\":" + hostDevices + "}}}}");
    }

    static String gpu(String name, String resource) {
        return "{\"name\":\"" + name + "\",\"deviceName\":\"" + resource + "\"}";
    }

    static String gpu(String name, String resource, String virtualGpuOptions) {
        return "{\"name\":\"" + name + "\",\"deviceName\":\"" + resource + "\",\"virtualGPUOptions\":" + virtualGpuOptions + "}";
    }

    List<PlannedHostdev> planned(LauncherEnv env, VmiDevices vmi) {
        PlanOutcome outcome = planner.plan(env, Optional.of(vmi), false, RELEASE);
        assertThat(outcome).isInstanceOf(PlanOutcome.Planned.class);
        return ((PlanOutcome.Planned) outcome).hostdevs();
    }

    List<String> problems(LauncherEnv env, Optional<VmiDevices> vmi, boolean companions) {
        PlanOutcome outcome = planner.plan(env, vmi, companions, RELEASE);
        assertThat(outcome).isInstanceOf(PlanOutcome.Failed.class);
        return ((PlanOutcome.Failed) outcome).problems();
    }

    static PlannedHostdev.Pci pci(String alias, String address, String origin) {
        return new PlannedHostdev.Pci(alias, PciAddress.parse(address), List.of(), origin);
    }

    @Nested
    class PositionsAsKubeVirtHandsThemOut {

        @Test
        void aSingleGpuGetsThePciAddressOfItsResourceAndTheGpuAlias() {
            assertThat(planned(env(T4_VAR, "0000:3b:00.0"), vmi("[" + gpu("gpu0", T4) + "]", "[]")))
                    .containsExactly(pci("ua-gpu-gpu0", "0000:3b:00.0", "gpus[0] 'gpu0' (" + T4 + ") via " + T4_VAR));
        }

        @Test
        void theNthEntryOfAResourceTakesTheNthAddress() {
            assertThat(planned(env(T4_VAR, "0000:3b:00.0,0000:86:00.0"), vmi("[" + gpu("a", T4) + "," + gpu("b", T4) + "]", "[]")))
                    .extracting(h -> ((PlannedHostdev.Pci) h).source().toString())
                    .containsExactly("0000:3b:00.0", "0000:86:00.0");
        }

        @Test
        void positionsAreCountedPerResourceWhenTwoResourcesInterleave() {
            LauncherEnv env = env(T4_VAR, "0000:3b:00.0,0000:3c:00.0", A10_VAR, "0000:af:00.0,0000:b0:00.0");
            VmiDevices vmi = vmi("[" + gpu("t1", T4) + "," + gpu("a1", A10) + "," + gpu("t2", T4) + "," + gpu("a2", A10) + "]", "[]");
            assertThat(planned(env, vmi))
                    .extracting(h -> h.alias() + "=" + ((PlannedHostdev.Pci) h).source())
                    .containsExactly("ua-gpu-t1=0000:3b:00.0", "ua-gpu-a1=0000:af:00.0", "ua-gpu-t2=0000:3c:00.0", "ua-gpu-a2=0000:b0:00.0");
        }

        /*
         * KubeVirt builds one pool per list, so both entries would get 0000:3b:00.0; one pool gives
         * each its own, gpus[] first. The elements still come in KubeVirt's order, hostDevices[]
         * first (converter.go: NewHostDeviceDomainConfigurator(GenericHostDevices, GPUHostDevices, ...)).
         */
        @Test
        void gpusAreServedBeforeHostDevicesFromOneSharedPoolAndWrittenAfterThem() {
            VmiDevices vmi = vmi("[" + gpu("g", T4) + "]", "[" + gpu("h", T4) + "]");
            assertThat(planned(env(T4_VAR, "0000:3b:00.0,0000:86:00.0"), vmi))
                    .extracting(h -> h.alias() + "=" + ((PlannedHostdev.Pci) h).source())
                    .containsExactly("ua-hostdevice-h=0000:86:00.0", "ua-gpu-g=0000:3b:00.0");
        }

        @Test
        void aTrailingCommaInTheVariableIsIgnoredAsKubeVirtDoes() {
            assertThat(planned(env(T4_VAR, "0000:3b:00.0,"), vmi("[" + gpu("gpu0", T4) + "]", "[]")))
                    .extracting(PlannedHostdev::alias).containsExactly("ua-gpu-gpu0");
        }

        /** KubeVirt's PCI_ADDRESS_PATTERN (pkg/util/hardware/hw_utils.go) takes either case. */
        @Test
        void upperCaseHexInAValueIsAcceptedAndWrittenAsSysfsNamesTheDevice() {
            assertThat(planned(env(T4_VAR, "0000:AF:00.0", VGPU_VAR, "4B20D080-1B54-4048-85B3-A6A62D165C01"),
                    vmi("[" + gpu("g", T4) + "," + gpu("v", VGPU, "{\"display\":{\"enabled\":false}}") + "]", "[]")))
                    .containsExactly(pci("ua-gpu-g", "0000:af:00.0", "gpus[0] 'g' (" + T4 + ") via " + T4_VAR),
                            new PlannedHostdev.Mdev("ua-gpu-v", MdevUuid.parse(UUID1), false, false, "gpus[1] 'v' (" + VGPU + ") via " + VGPU_VAR));
        }

        @Test
        void oneDeviceSpelledInTwoCasesIsStillOneDevice() {
            assertThat(problems(env(T4_VAR, "0000:AF:00.0,0000:af:00.0"), Optional.of(vmi("[" + gpu("a", T4) + "," + gpu("b", T4) + "]", "[]")), false))
                    .containsExactly("gpus[1] 'b' (" + T4 + "): " + T4_VAR + " lists 2 device(s) ('0000:AF:00.0,0000:af:00.0'),"
                            + " fewer than the VMI entries naming " + T4);
        }

        /* hostdevice/addresspool.go loads both variables; an empty one yields no hostdev (createHostDevices skips ""). */
        @Test
        void anEmptyPciVariableNextToASetMdevVariableIsPassedOver() {
            String emptyPci = "PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q";
            for (String empty : List.of("", ",")) {
                assertThat(planned(env(emptyPci, empty, VGPU_VAR, UUID1), vmi("[]", "[" + gpu("v", VGPU) + "]")))
                        .containsExactly(new PlannedHostdev.Mdev("ua-hostdevice-v", MdevUuid.parse(UUID1), false, false,
                                "hostDevices[0] 'v' (" + VGPU + ") via " + VGPU_VAR));
            }
        }

        @Test
        void anEmptyMdevVariableNextToASetPciVariableIsPassedOver() {
            assertThat(planned(env(T4_VAR, "0000:3b:00.0", "MDEV_" + T4_VAR, ""), vmi("[" + gpu("g", T4) + "]", "[]")))
                    .containsExactly(pci("ua-gpu-g", "0000:3b:00.0", "gpus[0] 'g' (" + T4 + ") via " + T4_VAR));
        }

        /* converter.go appends hostDevices[] then gpus[]; gpu/hostdev.go and generic/hostdev.go append PCI, then mdev. */
        @Test
        void hostDevicesBeforeGpusAndWithinEachListPciBeforeMdev() {
            String hostPci = "PCI_RESOURCE_INTEL_COM_E810";
            String hostMdev = "MDEV_PCI_RESOURCE_INTEL_COM_GVT";
            LauncherEnv env = env(T4_VAR, "0000:3b:00.0", VGPU_VAR, UUID1 + "," + UUID2, hostPci, "0000:5e:00.0", hostMdev, UUID3);
            VmiDevices vmi = vmi("[" + gpu("v0", VGPU) + "," + gpu("p", T4) + "," + gpu("v1", VGPU) + "]",
                    "[" + gpu("hm", "intel.com/GVT") + "," + gpu("hp", "intel.com/E810") + "]");
            assertThat(planned(env, vmi)).extracting(PlannedHostdev::alias)
                    .containsExactly("ua-hostdevice-hp", "ua-hostdevice-hm", "ua-gpu-p", "ua-gpu-v0", "ua-gpu-v1");
        }

        @Test
        void aResourceWithAnMdevVariableBecomesAnMdevHostdev() {
            assertThat(planned(env(VGPU_VAR, UUID1), vmi("[]", "[" + gpu("v", VGPU) + "]")))
                    .containsExactly(new PlannedHostdev.Mdev("ua-hostdevice-v", MdevUuid.parse(UUID1), false, false,
                            "hostDevices[0] 'v' (" + VGPU + ") via " + VGPU_VAR));
        }

        @Test
        void aUsbResourceIsLeftToKubeVirtWithANote() {
            PlanOutcome outcome = planner.plan(env("USB_RESOURCE_KUBEVIRT_IO_STORAGE", "1:5"),
                    Optional.of(vmi("[]", "[" + gpu("stick", "kubevirt.io/storage") + "]")), false, RELEASE);
            assertThat(outcome).isEqualTo(new PlanOutcome.Planned(List.of(),
                    List.of("hostDevices[0] 'stick' (kubevirt.io/storage) is a USB device (USB_RESOURCE_KUBEVIRT_IO_STORAGE); KubeVirt attaches it")));
        }

        @Test
        void draEntriesWithAClaimInsteadOfADeviceNameAreSkipped() {
            VmiDevices vmi = VmiDevices.parse("""
                    {"spec":{"domain":{"devices":{"gpus":[{"name":"dra","claimName":"gpu-claim","requestName":"gpu"},
                                                          {"name":"gpu0","deviceName":"nvidia.com/TU104GL_TESLA_T4"}]}}}}""");
            assertThat(planned(env(T4_VAR, "0000:3b:00.0"), vmi)).extracting(PlannedHostdev::alias).containsExactly("ua-gpu-gpu0");
        }
    }

    @Nested
    class VgpuDisplays {

        List<String> displays(String gpus) {
            return planned(env(VGPU_VAR, UUID1 + "," + UUID2 + "," + UUID3), vmi(gpus, "[]")).stream()
                    .map(h -> (PlannedHostdev.Mdev) h)
                    .map(m -> m.alias() + (m.display() ? " display" : "") + (m.ramfb() ? " ramfb" : ""))
                    .toList();
        }

        @Test
        void theFirstVgpuWithoutOptionsGetsDisplayAndRamfbTheOthersNeither() {
            assertThat(displays("[" + gpu("v0", VGPU) + "," + gpu("v1", VGPU) + "]"))
                    .containsExactly("ua-gpu-v0 display ramfb", "ua-gpu-v1");
        }

        @Test
        void displayDisabledInTheVmiTurnsBothOff() {
            assertThat(displays("[" + gpu("v0", VGPU, "{\"display\":{\"enabled\":false}}") + "]")).containsExactly("ua-gpu-v0");
        }

        /** hostdev.go isVgpuDisplaySet: options without a display block are no display setting. */
        @Test
        void optionsWithoutADisplayBlockStillGetTheDefault() {
            assertThat(displays("[" + gpu("v0", VGPU, "{}") + "]")).containsExactly("ua-gpu-v0 display ramfb");
        }

        @Test
        void anEnabledDisplayWithoutRamfbSettingGetsTheDefaultRamfb() {
            assertThat(displays("[" + gpu("v0", VGPU, "{\"display\":{\"enabled\":true}}") + "]")).containsExactly("ua-gpu-v0 display ramfb");
        }

        @Test
        void ramfbDisabledKeepsTheDisplay() {
            assertThat(displays("[" + gpu("v0", VGPU, "{\"display\":{\"ramFB\":{\"enabled\":false}}}") + "]"))
                    .containsExactly("ua-gpu-v0 display");
        }

        /** hostdev.go CreateMDEVHostDevices: the default applies only when no gpus[] entry sets display. */
        @Test
        void aDisplayBlockOnAnyVgpuTakesTheDefaultAwayFromTheFirst() {
            assertThat(displays("[" + gpu("v0", VGPU) + "," + gpu("v1", VGPU, "{\"display\":{\"enabled\":true}}") + "]"))
                    .containsExactly("ua-gpu-v0", "ua-gpu-v1 display ramfb");
        }

        @Test
        void aDisplayBlockOnAPassthroughGpuTakesTheDefaultAwayFromTheVgpus() {
            List<PlannedHostdev> plan = planned(env(T4_VAR, "0000:3b:00.0", VGPU_VAR, UUID1),
                    vmi("[" + gpu("pass", T4, "{\"display\":{\"enabled\":false}}") + "," + gpu("v", VGPU) + "]", "[]"));
            assertThat(plan).containsExactly(pci("ua-gpu-pass", "0000:3b:00.0", "gpus[0] 'pass' (" + T4 + ") via " + T4_VAR),
                    new PlannedHostdev.Mdev("ua-gpu-v", MdevUuid.parse(UUID1), false, false, "gpus[1] 'v' (" + VGPU + ") via " + VGPU_VAR));
        }

        @Test
        void aDisplayBlockOnADraGpuTakesTheDefaultAwayToo() {
            VmiDevices vmi = VmiDevices.parse("{\"spec\":{\"domain\":{\"devices\":{\"gpus\":[" + gpu("v", VGPU) + ","
                    + "{\"name\":\"dra\",\"claimName\":\"c\",\"requestName\":\"gpu\",\"virtualGPUOptions\":{\"display\":{\"enabled\":false}}}]}}}}");
            assertThat(planned(env(VGPU_VAR, UUID1), vmi))
                    .containsExactly(new PlannedHostdev.Mdev("ua-gpu-v", MdevUuid.parse(UUID1), false, false, "gpus[0] 'v' (" + VGPU + ") via " + VGPU_VAR));
        }

        /** vmi-create-admitter.go validateMDEVRamFB: unset enabled and ramFB.enabled count as true. */
        @Test
        void twoDisplaysWithRamfbAreRefusedAsKubeVirtsWebhookRefusesThem() {
            String both = "{\"display\":{\"ramFB\":{}}}";
            assertThat(problems(env(VGPU_VAR, UUID1 + "," + UUID2), Optional.of(vmi("[" + gpu("v0", VGPU, both) + "," + gpu("v1", VGPU, both) + "]", "[]")), false))
                    .containsExactly("gpus[0] 'v0' (" + VGPU + ") and gpus[1] 'v1' (" + VGPU + ") each enable a display with ramfb"
                            + " (virtualGPUOptions.display with enabled and ramFB.enabled unset or true); KubeVirt refuses such a VMI"
                            + " and libvirt allows one ramfb per VM");
        }

        @Test
        void hostDevicesNeverGetADisplay() {
            assertThat(planned(env(VGPU_VAR, UUID1), vmi("[]", "[" + gpu("v", VGPU) + "]")))
                    .containsExactly(new PlannedHostdev.Mdev("ua-hostdevice-v", MdevUuid.parse(UUID1), false, false,
                            "hostDevices[0] 'v' (" + VGPU + ") via " + VGPU_VAR));
        }

        @Test
        void aPciGpuGetsDisplayAndRamfbOnlyWhenItsDisplayIsExplicitlyEnabled() {
            List<PlannedHostdev> plan = planned(env(T4_VAR, "0000:3b:00.0,0000:86:00.0,0000:87:00.0"), vmi("["
                    + gpu("on", T4, "{\"display\":{\"enabled\":true}}") + "," + gpu("off", T4, "{\"display\":{\"enabled\":false}}")
                    + "," + gpu("none", T4) + "]", "[]"));
            assertThat(plan).containsExactly(
                    new PlannedHostdev.Pci("ua-gpu-on", PciAddress.parse("0000:3b:00.0"), List.of(), true, true, "gpus[0] 'on' (" + T4 + ") via " + T4_VAR),
                    pci("ua-gpu-off", "0000:86:00.0", "gpus[1] 'off' (" + T4 + ") via " + T4_VAR),
                    pci("ua-gpu-none", "0000:87:00.0", "gpus[2] 'none' (" + T4 + ") via " + T4_VAR));
        }

        @Test
        void aPassthroughGpuBeforeTheVgpuDoesNotTakeTheFirstVgpusDefault() {
            List<PlannedHostdev> plan = planned(env(T4_VAR, "0000:3b:00.0", VGPU_VAR, UUID1),
                    vmi("[" + gpu("pass", T4) + "," + gpu("v", VGPU) + "]", "[]"));
            assertThat(plan.get(1)).isEqualTo(new PlannedHostdev.Mdev("ua-gpu-v", MdevUuid.parse(UUID1), true, true,
                    "gpus[1] 'v' (" + VGPU + ") via " + VGPU_VAR));
        }
    }

    @Nested
    class Mismatches {

        @Test
        void moreEntriesThanAddressesNamesTheEntryAndTheVariable() {
            assertThat(problems(env(T4_VAR, "0000:3b:00.0"), Optional.of(vmi("[" + gpu("a", T4) + "," + gpu("b", T4) + "]", "[]")), false))
                    .containsExactly("gpus[1] 'b' (" + T4 + "): " + T4_VAR + " lists 1 device(s) ('0000:3b:00.0'), fewer than the VMI entries naming " + T4);
        }

        @Test
        void aMissingVariableNamesBothNamesKubeVirtWouldLookFor() {
            assertThat(problems(env(A10_VAR, "0000:af:00.0"), Optional.of(vmi("[" + gpu("gpu0", T4) + "]", "[]")), false))
                    .containsExactly("gpus[0] 'gpu0' (" + T4 + "): neither " + T4_VAR + " nor MDEV_" + T4_VAR + " is set in the environment");
        }

        @Test
        void aResourceInBothVariablesIsRefused() {
            assertThat(problems(env(T4_VAR, "0000:3b:00.0", "MDEV_" + T4_VAR, UUID1), Optional.of(vmi("[" + gpu("gpu0", T4) + "]", "[]")), false))
                    .containsExactly("gpus[0] 'gpu0' (" + T4 + "): both " + T4_VAR + " and MDEV_" + T4_VAR
                            + " are set; a resource hands out either PCI addresses or mdev UUIDs, never both");
        }

        @Test
        void aMalformedPciAddressIsNamedWithItsPosition() {
            assertThat(problems(env(T4_VAR, "0000:3b:00.0,3b:00.0"), Optional.of(vmi("[" + gpu("gpu0", T4) + "]", "[]")), false))
                    .containsExactly("gpus[0] 'gpu0' (" + T4 + "): " + T4_VAR + " item 2 '3b:00.0' is not a PCI address (expected DDDD:BB:SS.F in hex)");
        }

        @Test
        void aMalformedUuidIsNamedWithItsPosition() {
            assertThat(problems(env(VGPU_VAR, "not-a-uuid"), Optional.of(vmi("[" + gpu("v", VGPU) + "]", "[]")), false))
                    .containsExactly("gpus[0] 'v' (" + VGPU + "): " + VGPU_VAR + " item 1 'not-a-uuid' is not an mdev UUID");
        }

        @Test
        void everyProblemIsReportedAtOnceAndNothingIsPlanned() {
            PlanOutcome outcome = planner.plan(env(T4_VAR, "0000:3b:00.0"),
                    Optional.of(vmi("[" + gpu("a", T4) + "," + gpu("b", T4) + "," + gpu("c", A10) + "]", "[]")), false, RELEASE);
            assertThat(((PlanOutcome.Failed) outcome).problems()).hasSize(2)
                    .allSatisfy(p -> assertThat(p).matches("gpus\\[[12]\\] '[bc]' .*"));
        }

        @Test
        void aNameThatCannotBeAnAliasIsRefused() {
            assertThat(problems(env(T4_VAR, "0000:3b:00.0"), Optional.of(vmi("[" + gpu("gpu 0", T4) + "]", "[]")), false))
                    .containsExactly("gpus[0] 'gpu 0' (" + T4 + "): alias 'ua-gpu-gpu 0' has characters libvirt does not allow in an alias (letters, digits, '_', '-', '.')");
        }
    }

    @Nested
    class WithoutAVmi {

        @Test
        void everyDeviceVariableBecomesHostdevsPciFirstThenInVariableNameOrderWithAliasesFromResourceAndIndex() {
            PlanOutcome outcome = planner.plan(env(T4_VAR, "0000:3b:00.0,0000:86:00.0", VGPU_VAR, UUID1, A10_VAR, "0000:af:00.0",
                    "HOME", "/root"), Optional.empty(), false, RELEASE);
            assertThat(outcome).isEqualTo(new PlanOutcome.Planned(List.of(
                    pci("ua-hostdevice-nvidia_com_ga102gl_a10-0", "0000:af:00.0", A10_VAR + "[0]"),
                    pci("ua-hostdevice-nvidia_com_tu104gl_tesla_t4-0", "0000:3b:00.0", T4_VAR + "[0]"),
                    pci("ua-hostdevice-nvidia_com_tu104gl_tesla_t4-1", "0000:86:00.0", T4_VAR + "[1]"),
                    new PlannedHostdev.Mdev("ua-hostdevice-nvidia_com_grid_t4-1q-0", MdevUuid.parse(UUID1), false, false, VGPU_VAR + "[0]")),
                    List.of()));
        }

        @Test
        void aDeviceListedTwiceIsRefused() {
            assertThat(problems(env(T4_VAR, "0000:3b:00.0", A10_VAR, "0000:3b:00.0"), Optional.empty(), false))
                    .containsExactly(T4_VAR + "[0]: device 0000:3b:00.0 is listed twice (also " + A10_VAR + "[0])");
        }
    }

    @Nested
    class Companions {

        static final String COMPANIONS_VAR = "VFIO_DP_COMPANIONS_NVIDIA_COM_TU104GL_TESLA_T4";

        LauncherEnv withCompanions(String companions) {
            return env(T4_VAR, "0000:3b:00.0,0000:86:00.0", COMPANIONS_VAR, companions);
        }

        VmiDevices twoGpus(String annotation) {
            return VmiDevices.parse("{\"metadata\":{\"annotations\":{" + annotation + "}},\"spec\":{\"domain\":{\"devices\":{\"gpus\":["
                    + gpu("g0", T4) + "," + gpu("g1", T4) + "]}}}}");
        }

        List<List<PciAddress>> companionsOf(PlanOutcome outcome) {
            return ((PlanOutcome.Planned) outcome).hostdevs().stream().map(h -> ((PlannedHostdev.Pci) h).companions()).toList();
        }

        @Test
        void theVmiAnnotationAttachesEachGpusOwnCompanions() {
            PlanOutcome outcome = planner.plan(withCompanions("0000:3b:00.0=0000:3b:00.1+0000:3b:00.2,0000:86:00.0="),
                    Optional.of(twoGpus("\"vfio-device-plugin.io/companions\":\"true\"")), false, RELEASE);
            assertThat(companionsOf(outcome)).containsExactly(
                    List.of(PciAddress.parse("0000:3b:00.1"), PciAddress.parse("0000:3b:00.2")), List.of());
        }

        @Test
        void theOptionAttachesCompanionsWhenTheVmiSaysNothing() {
            PlanOutcome outcome = planner.plan(withCompanions("0000:3b:00.0=0000:3b:00.1"), Optional.of(twoGpus("")), true, RELEASE);
            assertThat(companionsOf(outcome)).containsExactly(List.of(PciAddress.parse("0000:3b:00.1")), List.of());
        }

        @Test
        void anAnnotationSayingFalseOverridesTheOption() {
            PlanOutcome outcome = planner.plan(withCompanions("0000:3b:00.0=0000:3b:00.1"),
                    Optional.of(twoGpus("\"vfio-device-plugin.io/companions\":\"false\"")), true, RELEASE);
            assertThat(companionsOf(outcome)).containsExactly(List.of(), List.of());
        }

        @Test
        void withoutTheCompanionsVariableThereAreNoneAndANoteSaysWhy() {
            PlanOutcome outcome = planner.plan(env(T4_VAR, "0000:3b:00.0"), Optional.of(vmi("[" + gpu("g0", T4) + "]", "[]")), true, RELEASE);
            assertThat(outcome).isEqualTo(new PlanOutcome.Planned(
                    List.of(pci("ua-gpu-g0", "0000:3b:00.0", "gpus[0] 'g0' (" + T4 + ") via " + T4_VAR)),
                    List.of(COMPANIONS_VAR + " is not set: no companion functions known for the devices of " + T4_VAR)));
        }

        @Test
        void aMalformedCompanionsVariableIsRefused() {
            assertThat(problems(withCompanions("0000:3b:00.0"), Optional.of(twoGpus("")), true))
                    .containsExactly("gpus[0] 'g0' (" + T4 + "): " + COMPANIONS_VAR
                            + ": companion entry '0000:3b:00.0' has no '=' (expected <device>=<fn>+<fn>)");
        }

        @Test
        void companionsForADeviceTheMainVariableDoesNotListAreRefused() {
            assertThat(problems(withCompanions("0000:3b:00.0=,0000:99:00.0=0000:99:00.1"), Optional.of(twoGpus("")), true))
                    .containsExactly("gpus[0] 'g0' (" + T4 + "): " + COMPANIONS_VAR + " lists companions for 0000:99:00.0, which " + T4_VAR + " does not list");
        }

        @Test
        void aGroupMateOnAnotherSlotIsAttachedToo() {
            PlanOutcome outcome = planner.plan(withCompanions("0000:3b:00.0=0000:3b:00.1+0000:3c:00.0"), Optional.of(twoGpus("")), true, RELEASE);
            assertThat(companionsOf(outcome)).containsExactly(List.of(PciAddress.parse("0000:3b:00.1"), PciAddress.parse("0000:3c:00.0")), List.of());
        }

        @Test
        void aDeviceGivenAsItsOwnCompanionIsRefused() {
            assertThat(problems(withCompanions("0000:3b:00.0=0000:3b:00.0"), Optional.of(twoGpus("")), true))
                    .containsExactly("gpus[0] 'g0' (" + T4 + "): " + COMPANIONS_VAR + " gives 0000:3b:00.0 as a companion of itself");
        }
    }

    /** Many devices: each variable split once, and a clear refusal past {@link HostdevPlanner#MAX_DEVICES}. */
    @Nested
    class ManyDevices {

        private static String addresses(int count) {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < count; i++) {
                if (i > 0) out.append(',');
                out.append(String.format("%04x:%02x:%02x.0", i / 8192, i / 32 % 256, i % 32));
            }
            return out.toString();
        }

        private static VmiDevices gpus(int count) {
            StringBuilder entries = new StringBuilder("[");
            for (int i = 0; i < count; i++) entries.append(i > 0 ? "," : "").append(gpu("g" + i, T4));
            return vmi(entries.append(']').toString(), "[]");
        }

        @Test
        void asManyEntriesAsTheLimitEachGetTheirOwnDeviceInOrder() {
            List<PlannedHostdev> planned = planned(env(T4_VAR, addresses(HostdevPlanner.MAX_DEVICES)), gpus(HostdevPlanner.MAX_DEVICES));

            assertThat(planned).hasSize(HostdevPlanner.MAX_DEVICES);
            assertThat(((PlannedHostdev.Pci) planned.getLast()).source()).isEqualTo(PciAddress.parse("0000:1f:1f.0"));
        }

        @Test
        void aMalformedItemIsReportedOnceHoweverManyEntriesDrawFromItsVariable() {
            assertThat(problems(env(T4_VAR, "0000:3b:00.0,3b:00.0,0000:3d:00.0"),
                    Optional.of(vmi("[" + gpu("a", T4) + "," + gpu("b", T4) + "," + gpu("c", T4) + "]", "[]")), false))
                    .containsExactly("gpus[0] 'a' (" + T4 + "): " + T4_VAR + " item 2 '3b:00.0' is not a PCI address (expected DDDD:BB:SS.F in hex)");
        }

        @Test
        void moreEntriesThanTheLimitAreRefusedSayingSo() {
            assertThat(problems(env(T4_VAR, addresses(HostdevPlanner.MAX_DEVICES + 1)), Optional.of(gpus(HostdevPlanner.MAX_DEVICES + 1)), false))
                    .containsExactly("the VMI has 1025 device entries (gpus[] and hostDevices[]); the helper takes at most 1024,"
                            + " more than a guest's PCI buses can hold");
        }

        @Test
        void aVariableListingMoreDevicesThanTheLimitIsRefusedSayingSo() {
            assertThat(problems(env(T4_VAR, addresses(HostdevPlanner.MAX_DEVICES + 1)), Optional.empty(), false))
                    .containsExactly(T4_VAR + ": " + T4_VAR + " lists 1025 devices; the helper takes at most 1024 from one variable");
        }

        @Test
        void aLongVariableIsQuotedByItsStartInAShortage() {
            String value = addresses(20);

            assertThat(problems(env(T4_VAR, value), Optional.of(gpus(21)), false)).containsExactly("gpus[20] 'g20' (" + T4 + "): " + T4_VAR
                    + " lists 20 device(s) ('" + value.substring(0, 120) + "... (" + value.length() + " characters)'), fewer than the VMI entries naming " + T4);
        }
    }
}
