package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class VmiDevicesTest {

    @Test
    void gpusComeBeforeHostDevicesWithTheirPositionsAndDisplayOptions() {
        VmiDevices vmi = VmiDevices.parse("""
                {"apiVersion":"kubevirt.io/v1","kind":"VirtualMachineInstance",
                 "metadata":{"name":"vmi-t4","annotations":{"vfio-device-plugin.io/companions":"true"}},
                 "spec":{"domain":{"devices":{
                   "hostDevices":[{"name":"nic","deviceName":"intel.com/E810"}],
                   "gpus":[{"name":"gpu0","deviceName":"nvidia.com/TU104GL_TESLA_T4"},
                           {"name":"v0","deviceName":"nvidia.com/GRID_T4-1Q",
                            "virtualGPUOptions":{"display":{"enabled":true,"ramFB":{"enabled":false}}}}]}}}}
                """);
        assertThat(vmi).isEqualTo(new VmiDevices(List.of(
                new DeviceRequest(DeviceRequest.Section.GPUS, 0, "gpu0", "nvidia.com/TU104GL_TESLA_T4", new VgpuDisplay.Unspecified()),
                new DeviceRequest(DeviceRequest.Section.GPUS, 1, "v0", "nvidia.com/GRID_T4-1Q", new VgpuDisplay.Requested(Optional.of(true), VgpuDisplay.RamFb.DISABLED)),
                new DeviceRequest(DeviceRequest.Section.HOST_DEVICES, 0, "nic", "intel.com/E810", new VgpuDisplay.Unspecified())),
                Optional.of(true), List.of(), "vmi-t4", Optional.empty()));
    }

    /** hostdev.go isVgpuDisplaySet: only a display block is a display setting; its flags stay as written. */
    @Test
    void optionsWithoutADisplayBlockAreUnspecifiedAndUnsetFlagsStayUnset() {
        VmiDevices vmi = VmiDevices.parse("""
                {"spec":{"domain":{"devices":{"gpus":[
                   {"name":"a","deviceName":"nvidia.com/GRID_T4-1Q","virtualGPUOptions":{}},
                   {"name":"b","deviceName":"nvidia.com/GRID_T4-1Q","virtualGPUOptions":{"display":{"ramFB":{}}}},
                   {"name":"dra","claimName":"gpu-claim","requestName":"gpu","virtualGPUOptions":{"display":{"enabled":false}}}]}}}}
                """);
        assertThat(vmi.requests()).extracting(DeviceRequest::display).containsExactly(
                new VgpuDisplay.Unspecified(), new VgpuDisplay.Requested(Optional.empty(), VgpuDisplay.RamFb.UNSET));
        assertThat(vmi.claimedGpus()).containsExactly(
                new VmiDevices.ClaimedGpu(2, "dra", new VgpuDisplay.Requested(Optional.of(false), VgpuDisplay.RamFb.ABSENT)));
    }

    /** The four ways a VMI writes display.ramFB (a FeatureState): absent, {}, enabled true, enabled false. */
    @Test
    void ramFbKeepsAbsentApartFromPresentWithEnabledUnset() {
        VmiDevices vmi = VmiDevices.parse("""
                {"spec":{"domain":{"devices":{"gpus":[
                   {"name":"a","deviceName":"x.io/v","virtualGPUOptions":{"display":{}}},
                   {"name":"b","deviceName":"x.io/v","virtualGPUOptions":{"display":{"ramFB":{}}}},
                   {"name":"c","deviceName":"x.io/v","virtualGPUOptions":{"display":{"ramFB":{"enabled":true}}}},
                   {"name":"d","deviceName":"x.io/v","virtualGPUOptions":{"display":{"ramFB":{"enabled":false}}}}]}}}}
                """);
        assertThat(vmi.requests()).extracting(r -> ((VgpuDisplay.Requested) r.display()).ramFb()).containsExactly(
                VgpuDisplay.RamFb.ABSENT, VgpuDisplay.RamFb.UNSET, VgpuDisplay.RamFb.ENABLED, VgpuDisplay.RamFb.DISABLED);
    }

    @Test
    void theNamespacedNameAndTheLauncherImageAreRead() {
        VmiDevices vmi = VmiDevices.parse("""
                {"metadata":{"name":"vm1","namespace":"team-a"},
                 "status":{"launcherContainerImageVersion":"quay.io/kubevirt/virt-launcher:v1.9.0"}}
                """);
        assertThat(vmi.name()).isEqualTo("team-a/vm1");
        assertThat(vmi.describe()).isEqualTo("VMI team-a/vm1");
        assertThat(vmi.launcherImage()).contains("quay.io/kubevirt/virt-launcher:v1.9.0");
    }

    @Test
    void aVmiWithoutMetadataOrStatusIsTheVmiWithNoLauncherImage() {
        VmiDevices vmi = VmiDevices.parse("{\"spec\":{}}");
        assertThat(vmi.describe()).isEqualTo("the VMI");
        assertThat(vmi.launcherImage()).isEmpty();
    }

    @Test
    void aLauncherImageThatIsNotAStringIsRefusedNamingTheField() {
        assertThatThrownBy(() -> VmiDevices.parse("{\"status\":{\"launcherContainerImageVersion\":9}}"))
                .hasMessage("VMI status.launcherContainerImageVersion must be a string");
    }

    @Test
    void yamlIsReadToo() {
        VmiDevices vmi = VmiDevices.parse("""
                spec:
                  domain:
                    devices:
                      gpus:
                      - name: gpu0
                        deviceName: nvidia.com/TU104GL_TESLA_T4
                """);
        assertThat(vmi.requests()).extracting(DeviceRequest::alias).containsExactly("ua-gpu-gpu0");
        assertThat(vmi.companions()).isEmpty();
    }

    @Test
    void anEntryWithoutDeviceNameOrClaimIsRefusedNamingIt() {
        assertThatThrownBy(() -> VmiDevices.parse("{\"spec\":{\"domain\":{\"devices\":{\"gpus\":[{\"name\":\"gpu0\"}]}}}}"))
                .hasMessage("VMI spec.domain.devices.gpus[0] 'gpu0' has no deviceName");
    }

    @Test
    void aDisplayFlagThatIsNotABooleanIsRefusedNamingItsPath() {
        assertThatThrownBy(() -> VmiDevices.parse("{\"spec\":{\"domain\":{\"devices\":{\"gpus\":[{\"name\":\"v\",\"deviceName\":\"a.b/c\","
                + "\"virtualGPUOptions\":{\"display\":{\"enabled\":\"yes\"}}}]}}}}"))
                .hasMessage("VMI spec.domain.devices.gpus[0].virtualGPUOptions.display.enabled must be true or false");
    }

    @Test
    void aCompanionsAnnotationOtherThanTrueOrFalseIsRefused() {
        assertThatThrownBy(() -> VmiDevices.parse("{\"metadata\":{\"annotations\":{\"vfio-device-plugin.io/companions\":\"yes\"}}}"))
                .hasMessage("VMI annotation vfio-device-plugin.io/companions must be \"true\" or \"false\", not \"yes\"");
    }

    @Test
    void textThatIsNeitherJsonNorYamlIsRefused() {
        assertThatThrownBy(() -> VmiDevices.parse("{\"spec\": ")).hasMessageStartingWith("VMI is neither JSON nor YAML: ");
    }
}
