package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.PciAddress;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What left since the last policy pass is served one more pass as Unhealthy, with why it left. */
class DeparturesTest {

    private static final String MDEV = "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27";

    private static PolicyResult policy(SnapshotBuilder b) throws IOException {
        return PolicyEngine.evaluate(b.build(), Optional.empty(),
                PciIds.parse("test", "10de  NVIDIA Corporation\n\t1eb8  TU104GL [Tesla T4]\n".getBytes(StandardCharsets.UTF_8)));
    }

    private static SnapshotBuilder twoT4s() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:1a:00.0", 0x1eb8, 24);
        b.gpu("0000:1b:00.0", 0x1eb8, 25);
        return b;
    }

    private static List<String> devices(DesiredState s) {
        return s.resources().values().stream().flatMap(r -> r.devices().stream())
                .map(d -> r(s, d) + " " + d.id() + " " + (d.health() instanceof Health.Unhealthy(String why) ? why : "Healthy")).toList();
    }

    private static String r(DesiredState s, ExposedDevice d) {
        return s.resources().values().stream().filter(r -> r.devices().contains(d)).findFirst().orElseThrow().name().value();
    }

    @Test
    void deviceReboundToAHostDriverStaysOnePassUnhealthyWithThePolicyReason() throws Exception {
        DesiredState before = policy(twoT4s()).desiredState();
        SnapshotBuilder after = twoT4s();
        after.fn("0000:1a:00.0").id(0x10de, 0x1eb8).cls(0x030200).driver("nvidia").group(24);

        assertThat(devices(Departures.keepOneMorePass(before, policy(after)))).containsExactly(
                "nvidia.com/TU104GL_TESLA_T4 0000:1a:00.0 no longer exposed: bound to nvidia: the host uses it (bind it to vfio-pci to pass it "
                        + "through); removed at the next rescan",
                "nvidia.com/TU104GL_TESLA_T4 0000:1b:00.0 Healthy");
    }

    @Test
    void deviceGoneFromTheHostSaysSo() throws Exception {
        DesiredState before = policy(twoT4s()).desiredState();
        SnapshotBuilder after = new SnapshotBuilder();
        after.gpu("0000:1b:00.0", 0x1eb8, 25);

        assertThat(devices(Departures.keepOneMorePass(before, policy(after)))).containsExactly(
                "nvidia.com/TU104GL_TESLA_T4 0000:1a:00.0 0000:1a:00.0 is gone from the host; removed at the next rescan",
                "nvidia.com/TU104GL_TESLA_T4 0000:1b:00.0 Healthy");
    }

    @Test
    void theNextPassDropsTheDeparted() throws Exception {
        SnapshotBuilder after = new SnapshotBuilder();
        after.gpu("0000:1b:00.0", 0x1eb8, 25);
        PolicyResult once = policy(after);

        assertThat(devices(Departures.keepOneMorePass(once.desiredState(), policy(after))))
                .containsExactly("nvidia.com/TU104GL_TESLA_T4 0000:1b:00.0 Healthy");
    }

    @Test
    void resourceWhoseLastDeviceLeftIsKeptOnePassWithItsKind() throws Exception {
        SnapshotBuilder before = new SnapshotBuilder().mdevParent("0000:3b:00.0", "nvidia-222=GRID T4-1B")
                .mdev(MDEV, "nvidia-222", "GRID T4-1B", "0000:3b:00.0", 100);
        before.fn("0000:3b:00.0").id(0x10de, 0x1eb8).cls(0x030200).driver("nvidia").group(31);
        SnapshotBuilder after = new SnapshotBuilder().mdevParent("0000:3b:00.0", "nvidia-222=GRID T4-1B");
        after.fn("0000:3b:00.0").id(0x10de, 0x1eb8).cls(0x030200).driver("nvidia").group(31);

        DesiredState served = Departures.keepOneMorePass(policy(before).desiredState(), policy(after));

        assertThat(devices(served)).containsExactly("nvidia.com/GRID_T4-1B " + MDEV + " mdev " + MDEV
                + " is gone from the host; removed at the next rescan");
        assertThat(served.resources().values().iterator().next().kind()).isEqualTo(DeviceKind.MDEV);
    }

    @Test
    void unchangedHostAddsNothing() throws Exception {
        PolicyResult same = policy(twoT4s());

        assertThat(Departures.keepOneMorePass(same.desiredState(), same)).isEqualTo(same.desiredState());
    }

    /**
     * The Unhealthy reason (what the VfioDeviceUnhealthy Node event and vfio_dp_health_transitions'
     * reason label carry) is the policy's skip reason word for word: one source for inventory,
     * events and metrics, including the words for a device virt-handler's selector names.
     */
    @Test
    void aDepartedDevicesReasonIsThePolicysReasonForItWordForWord() throws Exception {
        DesiredState before = policy(twoT4s()).desiredState();
        SnapshotBuilder after = twoT4s();
        after.fn("0000:1a:00.0").id(0x10de, 0x1eb8).cls(0x030200).driver("nvidia").group(24);
        PolicyResult next = PolicyEngine.evaluate(after.build(), Optional.of(new PermittedHostDevices(List.of(
                        new PciHostDevice("10DE:1EB8", "nvidia.com/T4", false)), List.of())),
                PciIds.parse("test", "10de  NVIDIA Corporation\n".getBytes(StandardCharsets.UTF_8)));

        assertThat(devices(Departures.keepOneMorePass(before, next))).containsExactly(
                "nvidia.com/TU104GL_TESLA_T4 0000:1a:00.0 no longer exposed: " + ((Decision.Skipped) next.functions().get(
                        PciAddress.parse("0000:1a:00.0"))).reason() + "; removed at the next rescan",
                "nvidia.com/TU104GL_TESLA_T4 0000:1b:00.0 no longer exposed: pciHostDevices[0] (10de:1eb8 → nvidia.com/T4) has no"
                        + " externalResourceProvider: true, so KubeVirt's virt-handler serves it; removed at the next rescan");
        assertThat(((Decision.Skipped) next.functions().get(PciAddress.parse("0000:1a:00.0"))).reason())
                .endsWith("the host driver nvidia holds it: no one serves it; virt-handler would serve it as nvidia.com/T4 once it is on vfio-pci");
    }
}
