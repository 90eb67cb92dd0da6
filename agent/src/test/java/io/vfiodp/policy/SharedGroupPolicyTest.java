package io.vfiodp.policy;

import static io.vfiodp.policy.PolicyEngineTest.a;
import static io.vfiodp.policy.PolicyEngineTest.configured;
import static io.vfiodp.policy.PolicyEngineTest.defaults;
import static io.vfiodp.policy.PolicyEngineTest.exposed;
import static io.vfiodp.policy.PolicyEngineTest.pciDevice;
import static io.vfiodp.policy.PolicyEngineTest.resource;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.Decision.Companion;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The IOMMU group is the unit of allocation: functions that share a group are never offered as
 * devices of their own. The group is offered as its lowest-addressed exposable function, the
 * others travel with it as companions, and the inventory says so on both rows.
 */
class SharedGroupPolicyTest {

    @BeforeAll
    static void loadIds() throws IOException {
        PolicyEngineTest.ids = PciIds.parse("test pci.ids", PolicyEngineTest.IDS.getBytes(StandardCharsets.UTF_8));
    }

    private static final String LEADER_NOTE_7 = "IOMMU group 7 is offered as this one device: 0000:3c:00.0 travels with it as a"
            + " companion (VFIO gives a group to one VM only, so they are never devices of their own)";
    private static final String MATE_NOTE_7 = "shares IOMMU group 7 with 0000:3b:00.0: VFIO gives a group to one VM only, so the"
            + " group is offered as one device, 0000:3b:00.0, and this function travels with it";

    @Test
    void twoGpusBehindOneSwitchWithoutAcsAreOneDeviceTheLowerAddress() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:3c:00.0", 0x1eb8, 7);
        b.gpu("0000:3b:00.0", 0x1eb8, 7);

        PolicyResult result = defaults(b.build());

        assertThat(result.desiredState().resources().values()).containsExactly(resource("nvidia.com/TU104GL_TESLA_T4", DeviceKind.PCI,
                pciDevice("0000:3b:00.0", 7, -1, List.of("0000:3c:00.0"))));
        assertThat(result.functions().get(a("0000:3b:00.0"))).isEqualTo(exposed("nvidia.com/TU104GL_TESLA_T4", LEADER_NOTE_7));
        assertThat(result.functions().get(a("0000:3c:00.0"))).isEqualTo(new Companion(a("0000:3b:00.0"), List.of(MATE_NOTE_7)));
    }

    @Test
    void matesUnderAnotherResourceTravelWithTheLowestAndLeaveNoResourceBehind() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:3b:00.0", 0x1eb8, 7);
        b.fn("0000:3c:00.0").id(0x8086, 0x1520).cls(0x020000).group(7);
        PermittedHostDevices config = new PermittedHostDevices(List.of(
                new PciHostDevice("10de:1eb8", "nvidia.com/T4", true),
                new PciHostDevice("8086:1520", "intel.com/VF", true)), List.of());

        PolicyResult result = configured(b.build(), config);

        assertThat(result.desiredState().resources().values()).containsExactly(resource("nvidia.com/T4", DeviceKind.PCI,
                pciDevice("0000:3b:00.0", 7, -1, List.of("0000:3c:00.0"))));
        assertThat(result.functions().get(a("0000:3c:00.0"))).isEqualTo(new Companion(a("0000:3b:00.0"), List.of(MATE_NOTE_7)));
    }

    @Test
    void functionsBehindAPciBridgeAreOneDeviceAndTheBridgeStaysOut() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.fn("0000:03:00.0").id(0x1b36, 0x000e).cls(0x060400).driver(null).group(11);
        b.fn("0000:04:01.0").id(0x1234, 0x11e8).cls(0x00ff00).group(11);
        b.fn("0000:04:02.0").id(0x1234, 0x11e8).cls(0x00ff00).group(11);
        b.fn("0000:04:03.0").id(0x1234, 0x11e8).cls(0x00ff00).group(11);
        PermittedHostDevices config = new PermittedHostDevices(List.of(new PciHostDevice("1234:11e8", "qemu.test/edu", true)), List.of());

        PolicyResult result = configured(b.build(), config);

        assertThat(result.desiredState().resources().values()).containsExactly(resource("qemu.test/edu", DeviceKind.PCI,
                pciDevice("0000:04:01.0", 11, -1, List.of("0000:04:02.0", "0000:04:03.0"))));
        assertThat(result.functions().get(a("0000:04:01.0"))).isEqualTo(exposed("qemu.test/edu", "IOMMU group 11 is offered as"
                + " this one device: 0000:04:02.0, 0000:04:03.0 travel with it as companions (VFIO gives a group to one VM only,"
                + " so they are never devices of their own)"));
        assertThat(result.functions()).doesNotContainKey(a("0000:03:00.0"));
    }

    @Test
    void theCardsOwnCompanionsAndTheMatesAllTravelWithTheOneDevice() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:3b:00.0", 0x1f08, 7).cls(0x030000);
        b.fn("0000:3b:00.1").id(0x10de, 0x10f9).cls(0x040300).group(7);
        b.gpu("0000:3c:00.0", 0x1f08, 7).cls(0x030000);
        b.fn("0000:3c:00.1").id(0x10de, 0x10f9).cls(0x040300).group(7);

        PolicyResult result = defaults(b.build());

        assertThat(PolicyResults.exposed(result, "0000:3b:00.0").orElseThrow().companions())
                .containsExactly(a("0000:3b:00.1"), a("0000:3c:00.0"), a("0000:3c:00.1"));
        assertThat(PolicyResults.exposed(result, "0000:3c:00.0")).isEmpty();
        assertThat(result.functions().get(a("0000:3b:00.1"))).isEqualTo(new Companion(a("0000:3b:00.0")));
        assertThat(result.functions().get(a("0000:3c:00.1"))).isEqualTo(new Companion(a("0000:3b:00.0")));
    }

    @Test
    void aGroupMateOnAHostDriverIsNoDeviceAndMakesTheOneDeviceUnhealthy() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:3b:00.0", 0x1eb8, 7).driver("nvidia");
        b.gpu("0000:3c:00.0", 0x1eb8, 7);

        PolicyResult result = defaults(b.build());

        ExposedDevice device = PolicyResults.exposed(result, "0000:3c:00.0").orElseThrow();
        assertThat(device.companions()).containsExactly(a("0000:3b:00.0"));
        assertThat(device.health()).isEqualTo(Health.unhealthy("group 7 not viable: 0000:3b:00.0 bound to nvidia"));
        assertThat(result.functions().get(a("0000:3b:00.0"))).isEqualTo(new Companion(a("0000:3c:00.0")));
    }

    @Test
    void devicesInGroupsOfTheirOwnAreUntouched() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:3b:00.0", 0x1eb8, 7);
        b.gpu("0000:3c:00.0", 0x1eb8, 8);

        PolicyResult result = defaults(b.build());

        assertThat(result.desiredState().resources().values()).containsExactly(resource("nvidia.com/TU104GL_TESLA_T4", DeviceKind.PCI,
                pciDevice("0000:3b:00.0", 7, -1, List.of()), pciDevice("0000:3c:00.0", 8, -1, List.of())));
        assertThat(result.functions().get(a("0000:3c:00.0"))).isEqualTo(exposed("nvidia.com/TU104GL_TESLA_T4"));
    }
}
