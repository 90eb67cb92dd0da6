package io.vfiodp.dra;

import static io.vfiodp.testkit.dra.DraKubeletSimulator.claim;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.testkit.dra.CdiRuntime;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.vfiodp.policy.Health;
import io.vfiodp.proto.dra.v1.Claim;
import io.vfiodp.proto.dra.v1.Device;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import io.vfiodp.proto.dra.v1.NodePrepareResourcesResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DraPrepareTest {

    static final String T4 = "pci-0000-1a-00-0";
    static final String T4_UNHEALTHY = "pci-0000-b2-00-0";

    @TempDir Path root;

    private static Claim ref(ResourceClaim c) {
        return claim(c.getMetadata().getNamespace(), c.getMetadata().getName(), c.getMetadata().getUid());
    }

    private static NodePrepareResourceResponse only(NodePrepareResourcesResponse r, ResourceClaim c) {
        return r.getClaimsOrThrow(c.getMetadata().getUid());
    }

    @Test
    void aPassthroughClaimGetsItsVfioDeviceAndItsMetadataMountAsCdiDevices() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu-claim", "u", Claims.ours(T4)));
            String uid = c.getMetadata().getUid();
            NodePrepareResourceResponse r = only(h.kubelet.prepare(ref(c)), c);
            assertThat(r.getError()).isEmpty();
            assertThat(r.getDevicesList()).containsExactly(Device.newBuilder().addRequestNames("gpu").setPoolName("node-a").setDeviceName(T4)
                    .addCdiDeviceIds("vfio-device-plugin.io/vfio=" + uid + "-" + T4)
                    .addCdiDeviceIds("vfio-device-plugin.io/metadata=" + uid + "_gpu").build());
        }
    }

    @Test
    void theVfioCdiDeviceHoldsExactlyTheContainerAndGroupNodes() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu-claim", "u", Claims.ours(T4)));
            NodePrepareResourceResponse r = only(h.kubelet.prepare(ref(c)), c);
            CdiRuntime.Edits edits = new CdiRuntime(h.settings.cdiDir()).edits(r.getDevices(0).getCdiDeviceIdsList());
            String uid = c.getMetadata().getUid();
            assertThat(edits.deviceNodes()).containsExactly(
                    new CdiRuntime.DeviceNode("/dev/vfio/vfio", "/dev/vfio/vfio", "rwm"),
                    new CdiRuntime.DeviceNode("/dev/vfio/24", "/dev/vfio/24", "rwm"));
            assertThat(edits.mounts()).containsExactly(new CdiRuntime.Mount(
                    h.settings.pluginDir().resolve("dra-device-metadata/vms_gpu-claim_" + uid + "/gpu/metadata.json").toString(),
                    "/var/run/kubernetes.io/dra-device-attributes/resourceclaims/gpu-claim/gpu/vfio-device-plugin.io-metadata.json",
                    List.of("ro", "bind")));
        }
    }

    @Test
    void onIommufdHostsTheIommuAndTheDevicesCdevComeToo() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("l40s-sriov"))) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("vgpu", "u", Claims.ours("pci-0000-41-00-4")));
            NodePrepareResourceResponse r = only(h.kubelet.prepare(ref(c)), c);
            CdiRuntime.Edits edits = new CdiRuntime(h.settings.cdiDir()).edits(r.getDevices(0).getCdiDeviceIdsList());
            String uid = c.getMetadata().getUid();
            assertThat(edits.deviceNodes()).extracting(CdiRuntime.DeviceNode::path)
                    .containsExactly("/dev/vfio/vfio", "/dev/vfio/22", "/dev/iommu", "/dev/vfio/devices/vfio0");
        }
    }

    @Test
    void preparingAgainAnswersTheSameWithoutAskingTheApi() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu-claim", "u", Claims.ours(T4)));
            NodePrepareResourceResponse first = only(h.kubelet.prepare(ref(c)), c);
            h.api.client().resource(c).delete();
            assertThat(only(h.kubelet.prepare(ref(c)), c)).isEqualTo(first);
        }
    }

    @Test
    void eachBadClaimGetsItsOwnErrorAndTheGoodOneIsPrepared() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim good = Claims.create(h.api.client(), Claims.allocated("good", "u", Claims.ours(T4)));
            ResourceClaim otherDriver = Claims.create(h.api.client(), Claims.allocated("other-driver", "u",
                    Claims.result("gpu", "gpu.nvidia.com", "node-a", "gpu-0")));
            ResourceClaim otherPool = Claims.create(h.api.client(), Claims.allocated("other-pool", "u",
                    Claims.result("gpu", DraNodes.DRIVER, "node-b", T4)));
            ResourceClaim unknownDevice = Claims.create(h.api.client(), Claims.allocated("unknown-device", "u", Claims.ours("pci-0000-99-00-0")));
            ResourceClaim noDevice = Claims.create(h.api.client(), Claims.allocated("no-device", "u", Claims.result("gpu", DraNodes.DRIVER, "node-a", "")));
            ResourceClaim unhealthy = Claims.create(h.api.client(), Claims.allocated("unhealthy", "u", Claims.ours(T4_UNHEALTHY)));
            ResourceClaim unallocated = Claims.allocated("unallocated", "u");
            unallocated.setStatus(null);
            unallocated = Claims.create(h.api.client(), unallocated);
            NodePrepareResourcesResponse r = h.kubelet.prepare(ref(good), ref(otherDriver), ref(otherPool), ref(unknownDevice), ref(noDevice),
                    ref(unhealthy), ref(unallocated), claim("vms", "missing", "uid-missing"), claim("vms", "Bad/Name", "uid-bad"));
            assertThat(r.getClaimsCount()).isEqualTo(9);
            assertThat(only(r, good).getError()).isEmpty();
            assertThat(only(r, good).getDevicesCount()).isEqualTo(1);
            assertThat(only(r, otherDriver).getError()).isEqualTo("ResourceClaim vms/other-driver allocates no device of driver vfio-device-plugin.io");
            assertThat(only(r, otherPool).getError()).isEqualTo("ResourceClaim vms/other-pool allocation result 0: device " + T4
                    + " is in pool node-b, another node's; this node's pool is node-a");
            assertThat(only(r, unknownDevice).getError()).isEqualTo("ResourceClaim vms/unknown-device allocation result 0: device pci-0000-99-00-0"
                    + " is not one this node offers through DRA");
            assertThat(only(r, noDevice).getError()).isEqualTo("ResourceClaim vms/no-device allocation result 0 is malformed: it lacks its device");
            assertThat(only(r, unhealthy).getError()).isEqualTo("ResourceClaim vms/unhealthy allocation result 0: device " + T4_UNHEALTHY
                    + " (0000:b2:00.0) is unhealthy: IOMMU group 65: /dev/vfio/65 missing");
            assertThat(only(r, unallocated).getError()).isEqualTo("ResourceClaim vms/unallocated is not allocated");
            assertThat(r.getClaimsOrThrow("uid-missing").getError()).isEqualTo("ResourceClaim vms/missing does not exist");
            assertThat(r.getClaimsOrThrow("uid-bad").getError()).isEqualTo("claim vms/Bad/Name (UID uid-bad): malformed name");
            // every refusal reaches the listener (the metrics' count of failed prepares), the prepared claim does not
            assertThat(h.heard).hasSize(8).allSatisfy(line -> assertThat(line).startsWith("prepare failed: "))
                    .contains("prepare failed: ResourceClaim vms/missing does not exist");
        }
    }

    @Test
    void aClaimReplacedUnderTheSameNameIsRefused() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu-claim", "u", Claims.ours(T4)));
            NodePrepareResourceResponse r = h.kubelet.prepare(claim("vms", "gpu-claim", "an-older-uid")).getClaimsOrThrow("an-older-uid");
            assertThat(r.getError()).isEqualTo("ResourceClaim vms/gpu-claim has UID " + c.getMetadata().getUid() + ", not an-older-uid: it was replaced");
        }
    }

    @Test
    void aDeviceGoneUnhealthyIsRefusedWithTheReason() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            h.driver.apply(DraNodes.withHealth(DraNodes.allDra("t4-numa"), "0000:1a:00.0", Health.unhealthy("/dev/vfio/24 disappeared")));
            await().atMost(Duration.ofSeconds(30)).until(() -> !h.driver.view().device(T4).orElseThrow().healthy());
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu-claim", "u", Claims.ours(T4)));
            assertThat(only(h.kubelet.prepare(ref(c)), c).getError()).isEqualTo("ResourceClaim vms/gpu-claim allocation result 0: device " + T4
                    + " (0000:1a:00.0) is unhealthy: /dev/vfio/24 disappeared");
        }
    }

    @Test
    void aDeviceHeldByAnotherPreparedClaimIsRefused() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim first = Claims.create(h.api.client(), Claims.allocated("first", "u", Claims.ours(T4)));
            ResourceClaim second = Claims.create(h.api.client(), Claims.allocated("second", "u", Claims.ours(T4)));
            assertThat(only(h.kubelet.prepare(ref(first)), first).getError()).isEmpty();
            assertThat(only(h.kubelet.prepare(ref(second)), second).getError()).isEqualTo("ResourceClaim vms/second: device " + T4
                    + " (0000:1a:00.0) is already prepared for claim vms/first (UID " + first.getMetadata().getUid() + ")");
        }
    }

    @Test
    void unpreparingRemovesEveryFileAndFreesTheDevice() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim first = Claims.create(h.api.client(), Claims.allocated("first", "u", Claims.ours(T4)));
            h.kubelet.prepare(ref(first));
            assertThat(files(h.settings.cdiDir())).hasSize(2);
            assertThat(h.kubelet.unprepare(ref(first)).getClaimsOrThrow(first.getMetadata().getUid()).getError()).isEmpty();
            assertThat(files(h.settings.cdiDir())).isEmpty();
            assertThat(h.settings.pluginDir().resolve("dra-device-metadata/vms_first_" + first.getMetadata().getUid())).doesNotExist();
            assertThat(h.settings.pluginDir().resolve("dra-device-metadata")).isEmptyDirectory();
            ResourceClaim second = Claims.create(h.api.client(), Claims.allocated("second", "u", Claims.ours(T4)));
            assertThat(only(h.kubelet.prepare(ref(second)), second).getError()).isEmpty();
        }
    }

    @Test
    void unpreparingAClaimNeverPreparedSucceeds() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            assertThat(h.kubelet.unprepare(claim("vms", "never", "uid-never")).getClaimsOrThrow("uid-never").getError()).isEmpty();
        }
    }

    @Test
    void aDriverRestartBetweenPrepareAndUnprepareLosesNothingAndPreparesNothingTwice() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu-claim", "u", Claims.ours(T4)));
            NodePrepareResourceResponse before = only(h.kubelet.prepare(ref(c)), c);
            h.restartDriver(DraNodes.allDra("t4-numa"));
            h.api.client().resource(c).delete();
            assertThat(only(h.kubelet.prepare(ref(c)), c)).isEqualTo(before);
            ResourceClaim other = Claims.create(h.api.client(), Claims.allocated("other", "u", Claims.ours(T4)));
            assertThat(only(h.kubelet.prepare(ref(other)), other).getError()).contains("is already prepared for claim vms/gpu-claim");
            assertThat(h.kubelet.unprepare(ref(c)).getClaimsOrThrow(c.getMetadata().getUid()).getError()).isEmpty();
            assertThat(files(h.settings.cdiDir())).isEmpty();
        }
    }

    @Test
    void aKubeletRestartRegistersAgainAndItsRepeatedPrepareGetsTheSameDevices() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu-claim", "u", Claims.ours(T4)));
            NodePrepareResourceResponse before = only(h.kubelet.prepare(ref(c)), c);
            h.kubelet.restart();
            h.registerOnce();
            assertThat(only(h.kubelet.prepare(ref(c)), c)).isEqualTo(before);
        }
    }

    @Test
    void aV1beta1KubeletPreparesTheSame() {
        try (DraHarness h = new DraHarness(root, DraKubeletSimulator.KUBELET_133).start(DraNodes.allDra("t4-vgpu"))) {
            String mdev = "mdev-0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27";
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("vgpu", "u", Claims.ours(mdev)));
            NodePrepareResourceResponse r = only(h.kubelet.prepare(ref(c)), c);
            assertThat(r.getError()).isEmpty();
            assertThat(r.getDevices(0).getDeviceName()).isEqualTo(mdev);
            assertThat(h.kubelet.unprepare(ref(c)).getClaimsOrThrow(c.getMetadata().getUid()).getError()).isEmpty();
        }
    }

    static List<Path> files(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }
}
