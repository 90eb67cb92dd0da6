package io.vfiodp.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.PolicyResult;
import io.vfiodp.policy.config.ConfigFile;
import io.vfiodp.policy.config.InvalidConfigException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SuggestedConfigTest {

    static final PciIds IDS = InventoryHosts.ids();

    static String suggest(HostSnapshot s) {
        return SuggestedConfig.yaml(s, PolicyEngine.evaluate(s, Optional.empty(), IDS), IDS);
    }

    /** The suggestion, read back as --config reads it, gives exactly the default desired state. */
    static void assertRoundTrip(HostSnapshot s) throws InvalidConfigException {
        PolicyResult defaults = PolicyEngine.evaluate(s, Optional.empty(), IDS);
        ConfigFile.Loaded loaded = ConfigFile.parse("suggested", SuggestedConfig.yaml(s, defaults, IDS));
        PolicyResult configured = PolicyEngine.evaluate(s, Optional.of(loaded.permittedHostDevices().orElseThrow()), IDS);
        assertThat(loaded.warnings()).isEmpty();
        assertThat(configured.problems()).isEmpty();
        assertThat(configured.desiredState()).isEqualTo(defaults.desiredState());
    }

    @Test
    void passthroughHostRoundTrips() throws InvalidConfigException {
        assertRoundTrip(InventoryHosts.workstation().build());
    }

    @Test
    void mdevHostRoundTrips() throws InvalidConfigException {
        assertRoundTrip(InventoryHosts.t4Vgpu().build());
    }

    @Test
    void sriovVgpuHostWithOneTypeRoundTrips() throws InvalidConfigException {
        assertRoundTrip(InventoryHosts.l40s().build());
    }

    @Test
    void passthroughSuggestionListsTheModelAndCommentsOutOtherVendors() {
        assertThat(suggest(InventoryHosts.workstation().build())).isEqualTo("""
                # Suggested by 'vfio-device-plugin inventory --suggest-config': with --config this exposes
                # what the default policy exposes on this host, under the same resource names.
                permittedHostDevices:
                  pciHostDevices:
                    # TU106 [GeForce RTX 2060 Rev. A]: 0000:01:00.0
                    - pciVendorSelector: "10DE:1F08"
                      resourceName: "nvidia.com/TU106_GEFORCE_RTX_2060_REV__A"
                      externalResourceProvider: true
                    # I350 Ethernet Controller Virtual Function on vfio-pci: 0000:05:10.0
                    # not exposed by default; uncomment to permit it (and pick your own domain)
                    # - pciVendorSelector: "8086:1520"
                    #   resourceName: "example.com/I350_ETHERNET_CONTROLLER_VIRTUAL_FUNCTION"
                    #   externalResourceProvider: true
                  mediatedDevices: []
                """);
    }

    @Test
    void mdevSuggestionListsEveryTypeSeen() {
        assertThat(suggest(InventoryHosts.t4Vgpu().build())).isEqualTo("""
                # Suggested by 'vfio-device-plugin inventory --suggest-config': with --config this exposes
                # what the default policy exposes on this host, under the same resource names.
                permittedHostDevices:
                  pciHostDevices: []
                  mediatedDevices:
                    # instances: 1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c, 2c7b6c4d-1e5f-4a6b-8c9d-8e7f6a5b4c3d
                    - mdevNameSelector: "GRID_T4-1B"
                      resourceName: "nvidia.com/GRID_T4-1B"
                      externalResourceProvider: true
                    # type offered, no instance yet
                    - mdevNameSelector: "GRID_T4-1Q"
                      resourceName: "nvidia.com/GRID_T4-1Q"
                      externalResourceProvider: true
                    # type offered, no instance yet
                    - mdevNameSelector: "GRID_T4-2B"
                      resourceName: "nvidia.com/GRID_T4-2B"
                      externalResourceProvider: true
                """);
    }

    @Test
    void onlyCommentedEntriesLeaveAnEmptyList() throws InvalidConfigException {
        var b = new io.vfiodp.policy.SnapshotBuilder();
        b.fn("0000:05:10.0").id(0x8086, 0x1520).cls(0x020000).group(20);
        String yaml = suggest(b.build());
        assertThat(yaml).contains("""
                  pciHostDevices:
                    # I350 Ethernet Controller Virtual Function on vfio-pci: 0000:05:10.0
                """);
        assertThat(ConfigFile.parse("suggested", yaml).permittedHostDevices().orElseThrow().pciHostDevices()).isEmpty();
    }

    @Test
    void vfsOfOneModelWithSeveralVgpuTypesAreNoted() {
        var b = InventoryHosts.l40s();
        b.vgpuVf("0000:41:00.6", "0000:41:00.0", 1148, "NVIDIA L40S-8Q");
        assertThat(suggest(b.build())).contains("""
                    # AD102GL [L40S]: 0000:41:00.4, 0000:41:00.5, 0000:41:00.6
                    # default mode splits these over [nvidia.com/NVIDIA_L40S-4Q, nvidia.com/NVIDIA_L40S-8Q]; a pciVendorSelector cannot tell them apart, so all go to the first
                    - pciVendorSelector: "10DE:26B9"
                      resourceName: "nvidia.com/NVIDIA_L40S-4Q"
                """);
    }

    @Test
    void quotedEscapesYamlSpecials() {
        assertThat(SuggestedConfig.quoted("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
    }
}
