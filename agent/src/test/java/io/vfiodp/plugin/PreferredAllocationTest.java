package io.vfiodp.plugin;

import static io.vfiodp.plugin.Devices.pci;
import static io.vfiodp.plugin.Devices.pciUnder;
import static io.vfiodp.plugin.Devices.resource;
import static io.vfiodp.plugin.Devices.state;
import static io.vfiodp.plugin.Devices.view;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

class PreferredAllocationTest {

    private static final String R = "nvidia.com/GH100";

    // An HGX-like board: two NUMA nodes, each with two PCIe switches of two GPUs.
    // Switch upstream ports 0000:x1:00.0, downstream ports 0000:x2:0N.0, root ports 0000:00:0N.0.
    private static final ExposedDevice N0_S1_A = pciUnder("0000:13:00.0", 1, 0, "0000:12:00.0", "0000:11:00.0", "0000:10:01.0");
    private static final ExposedDevice N0_S1_B = pciUnder("0000:14:00.0", 2, 0, "0000:12:01.0", "0000:11:00.0", "0000:10:01.0");
    private static final ExposedDevice N0_S2_A = pciUnder("0000:23:00.0", 3, 0, "0000:22:00.0", "0000:21:00.0", "0000:20:01.0");
    private static final ExposedDevice N0_S2_B = pciUnder("0000:24:00.0", 4, 0, "0000:22:01.0", "0000:21:00.0", "0000:20:01.0");
    private static final ExposedDevice N1_S3_A = pciUnder("0000:93:00.0", 5, 1, "0000:92:00.0", "0000:91:00.0", "0000:90:01.0");
    private static final ExposedDevice N1_S3_B = pciUnder("0000:94:00.0", 6, 1, "0000:92:01.0", "0000:91:00.0", "0000:90:01.0");
    private static final ExposedDevice N1_S4_A = pciUnder("0000:a3:00.0", 7, 1, "0000:a2:00.0", "0000:a1:00.0", "0000:a0:01.0");
    private static final ExposedDevice N1_S4_B = pciUnder("0000:a4:00.0", 8, 1, "0000:a2:01.0", "0000:a1:00.0", "0000:a0:01.0");

    private static final ResourceView HGX = view(state(resource(R, N0_S1_A, N0_S1_B, N0_S2_A, N0_S2_B, N1_S3_A, N1_S3_B, N1_S4_A, N1_S4_B)), R);

    private static PreferredAllocationRequest request(List<String> available, List<String> must, int size) {
        return PreferredAllocationRequest.newBuilder().addContainerRequests(ContainerPreferredAllocationRequest.newBuilder()
                .addAllAvailableDeviceIDs(available).addAllMustIncludeDeviceIDs(must).setAllocationSize(size)).build();
    }

    private static List<String> prefer(ResourceView view, List<String> available, List<String> must, int size) {
        RpcOutcome<PreferredAllocationResponse> outcome = PreferredAllocation.prefer(view, request(available, must, size));
        assertThat(outcome).isInstanceOf(RpcOutcome.Granted.class);
        return ((RpcOutcome.Granted<PreferredAllocationResponse>) outcome).response().getContainerResponses(0).getDeviceIDsList();
    }

    private static RpcOutcome.Refused<PreferredAllocationResponse> refused(ResourceView view, List<String> available, List<String> must, int size) {
        RpcOutcome<PreferredAllocationResponse> outcome = PreferredAllocation.prefer(view, request(available, must, size));
        assertThat(outcome).isInstanceOf(RpcOutcome.Refused.class);
        return (RpcOutcome.Refused<PreferredAllocationResponse>) outcome;
    }

    private static List<String> ids(ExposedDevice... devices) {
        return java.util.Arrays.stream(devices).map(ExposedDevice::id).toList();
    }

    @Test
    void mustIncludeDevicesAreAlwaysInTheAnswer() {
        assertThat(prefer(HGX, ids(N0_S1_A, N0_S1_B, N1_S4_B), ids(N1_S4_B), 1)).containsExactly("0000:a4:00.0");
    }

    @Test
    void allocationFitsOnOneNumaNodeWhenItCan() {
        // Node 0 has three free GPUs, node 1 has four: a request of three stays on node 0.
        List<String> available = ids(N0_S1_A, N0_S2_A, N0_S2_B, N1_S3_A, N1_S3_B, N1_S4_A, N1_S4_B);

        assertThat(prefer(HGX, available, List.of(), 3)).containsExactly("0000:13:00.0", "0000:23:00.0", "0000:24:00.0");
    }

    @Test
    void singleNodeChoiceIsTheTightestFitSoLargerNodesStayWhole() {
        // Node 0: two free, node 1: four free; two GPUs go to node 0.
        List<String> available = ids(N0_S2_A, N0_S2_B, N1_S3_A, N1_S3_B, N1_S4_A, N1_S4_B);

        assertThat(prefer(HGX, available, List.of(), 2)).containsExactly("0000:23:00.0", "0000:24:00.0");
    }

    @Test
    void allocationSpillsOntoTheFewestNodes() {
        // Node 0: four free, node 1: two free; five GPUs need both nodes, and node 0 entirely.
        List<String> available = ids(N0_S1_A, N0_S1_B, N0_S2_A, N0_S2_B, N1_S3_A, N1_S4_A);

        List<String> chosen = prefer(HGX, available, List.of(), 5);

        assertThat(chosen).hasSize(5).contains("0000:13:00.0", "0000:14:00.0", "0000:23:00.0", "0000:24:00.0");
    }

    @Test
    void mustIncludeDevicesPullTheRestOntoTheirNode() {
        List<String> available = ids(N0_S1_A, N0_S1_B, N1_S3_A, N1_S3_B, N1_S4_A);

        assertThat(prefer(HGX, available, ids(N1_S4_A), 2)).containsExactly("0000:93:00.0", "0000:a3:00.0");
    }

    @Test
    void devicesSharingAPcieSwitchAreChosenTogether() {
        // Node 0 fully free; two GPUs come from one switch, not one from each.
        List<String> available = ids(N0_S1_A, N0_S2_A, N0_S2_B, N0_S1_B);

        assertThat(prefer(HGX, available, List.of(), 2)).containsExactly("0000:13:00.0", "0000:14:00.0");
    }

    @Test
    void aSwitchWithTwoFreeGpusBeatsTheLowerIdWhoseSwitchMateIsTaken() {
        List<String> available = ids(N0_S1_A, N0_S2_A, N0_S2_B);

        assertThat(prefer(HGX, available, List.of(), 2)).containsExactly("0000:23:00.0", "0000:24:00.0");
    }

    @Test
    void mustIncludeDevicePullsItsSwitchMate() {
        List<String> available = ids(N0_S1_A, N0_S1_B, N0_S2_A, N0_S2_B);

        assertThat(prefer(HGX, available, ids(N0_S2_B), 2)).containsExactly("0000:23:00.0", "0000:24:00.0");
    }

    @Test
    void singleDeviceIsTakenWhereItBreaksUpNoSwitchPair() {
        // 0000:13:00.0 has lost its switch-mate; taking it keeps the 0000:23/24 pair for a two-GPU VM.
        List<String> available = ids(N0_S2_A, N0_S2_B, N0_S1_A);

        assertThat(prefer(HGX, available, List.of(), 1)).containsExactly("0000:13:00.0");
    }

    @Test
    void tiesGoToTheLowestIdSoTheAnswerIsDeterministic() {
        ResourceView flat = view(state(resource(R, pci("0000:05:00.0", 5, -1), pci("0000:03:00.0", 3, -1), pci("0000:04:00.0", 4, -1))), R);

        assertThat(prefer(flat, List.of("0000:05:00.0", "0000:04:00.0", "0000:03:00.0"), List.of(), 2))
                .containsExactly("0000:03:00.0", "0000:04:00.0");
        assertThat(prefer(flat, List.of("0000:03:00.0", "0000:05:00.0", "0000:04:00.0"), List.of(), 2))
                .containsExactly("0000:03:00.0", "0000:04:00.0");
    }

    @Test
    void unhealthyAndUnknownAvailableDevicesAreNeverProposed() {
        ResourceView v = view(state(resource(R, pci("0000:03:00.0", 3, 0).withHealth(Health.unhealthy("gone")), pci("0000:04:00.0", 4, 0))), R);

        assertThat(prefer(v, List.of("0000:03:00.0", "0000:99:00.0", "0000:04:00.0"), List.of(), 2)).containsExactly("0000:04:00.0");
    }

    @Test
    void eachContainerRequestIsAnsweredInOrder() {
        PreferredAllocationRequest req = PreferredAllocationRequest.newBuilder()
                .addContainerRequests(ContainerPreferredAllocationRequest.newBuilder().addAllAvailableDeviceIDs(ids(N1_S3_A, N1_S3_B)).setAllocationSize(1))
                .addContainerRequests(ContainerPreferredAllocationRequest.newBuilder().addAllAvailableDeviceIDs(ids(N0_S1_A)).setAllocationSize(1))
                .build();

        var outcome = (RpcOutcome.Granted<PreferredAllocationResponse>) PreferredAllocation.prefer(HGX, req);

        assertThat(outcome.response().getContainerResponsesList()).extracting(c -> List.copyOf(c.getDeviceIDsList()))
                .containsExactly(List.of("0000:93:00.0"), List.of("0000:13:00.0"));
    }

    @Test
    void unknownMustIncludeDeviceIsInvalidArgumentNamingIt() {
        var r = refused(HGX, ids(N0_S1_A), List.of("0000:ee:00.0"), 1);

        assertThat(r.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(r.message()).isEqualTo("GetPreferredAllocation nvidia.com/GH100, container request 0: must-include device 0000:ee:00.0 is unknown to this node");
    }

    @Test
    void moreMustIncludeDevicesThanTheSizeIsInvalidArgument() {
        var r = refused(HGX, ids(N0_S1_A, N0_S1_B), ids(N0_S1_A, N0_S1_B), 1);

        assertThat(r.message()).isEqualTo("GetPreferredAllocation nvidia.com/GH100, container request 0: 2 must-include devices exceed allocation_size 1");
    }

    @Test
    void nonPositiveSizeIsInvalidArgument() {
        var r = refused(HGX, ids(N0_S1_A), List.of(), 0);

        assertThat(r.message()).isEqualTo("GetPreferredAllocation nvidia.com/GH100, container request 0: allocation_size is 0");
    }

    @Test
    void sharedBridgesCountsTheCommonPathFromTheRootPort() {
        assertThat(PreferredAllocation.sharedBridges(N0_S1_A, N0_S1_B)).isEqualTo(2);
        assertThat(PreferredAllocation.sharedBridges(N0_S1_A, N0_S2_A)).isZero();
        assertThat(PreferredAllocation.sharedBridges(N0_S1_A, N0_S1_A)).isEqualTo(3);
    }
}
