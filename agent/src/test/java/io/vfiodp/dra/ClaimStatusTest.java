package io.vfiodp.dra;

import static io.vfiodp.testkit.dra.DraKubeletSimulator.claim;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.runtime.RawExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** KEP-4817: what a prepared claim's devices are, written into its status for {@code kubectl get resourceclaim -o yaml}. */
class ClaimStatusTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir Path root;

    private static List<AllocatedDeviceStatus> statusDevices(DraHarness h, String name) {
        ResourceClaim c = h.api.client().dynamicResourceAllocation().v1().resourceClaims().inNamespace(Claims.NAMESPACE).withName(name).get();
        return c.getStatus() == null || c.getStatus().getDevices() == null ? List.of() : c.getStatus().getDevices();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> data(AllocatedDeviceStatus d) {
        return (Map<String, Object>) ((RawExtension) d.getData()).getValue();
    }

    private static String prepare(DraHarness h, ResourceClaim c) {
        return h.kubelet.prepare(claim(Claims.NAMESPACE, c.getMetadata().getName(), c.getMetadata().getUid()))
                .getClaimsOrThrow(c.getMetadata().getUid()).getError();
    }

    @Test
    void aPreparedPassthroughDeviceIsInTheClaimsStatusReadyWithItsAddressGroupAndResource() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu-claim", "u", Claims.ours("pci-0000-1a-00-0")));

            assertThat(prepare(h, c)).isEmpty();

            AllocatedDeviceStatus d = await().atMost(WAIT).until(() -> statusDevices(h, "gpu-claim"), l -> !l.isEmpty()).getFirst();
            assertThat(List.of(d.getDriver(), d.getPool(), d.getDevice())).containsExactly("vfio-device-plugin.io", "node-a", "pci-0000-1a-00-0");
            Condition ready = d.getConditions().getFirst();
            assertThat(List.of(ready.getType(), ready.getStatus(), ready.getReason(), ready.getMessage(), ready.getLastTransitionTime()))
                    .containsExactly("Ready", "True", "Prepared", "prepared for request gpu: /dev/vfio/vfio, /dev/vfio/24", "2026-05-04T10:00:00Z");
            assertThat(data(d)).isEqualTo(Map.of("pciBusID", "0000:1a:00.0", "iommuGroup", 24, "resourceName", "nvidia.com/TU104GL_TESLA_T4"));
            // the allocation the scheduler wrote stays as it was
            assertThat(h.api.client().dynamicResourceAllocation().v1().resourceClaims().inNamespace(Claims.NAMESPACE).withName("gpu-claim").get()
                    .getStatus().getAllocation().getDevices().getResults()).hasSize(1);
        }
    }

    @Test
    void aPreparedMdevIsInTheClaimsStatusWithItsUuidAndParent() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-vgpu"))) {
            String mdev = "mdev-0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27";
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("vgpu", "u", Claims.ours(mdev)));

            assertThat(prepare(h, c)).isEmpty();

            AllocatedDeviceStatus d = await().atMost(WAIT).until(() -> statusDevices(h, "vgpu"), l -> !l.isEmpty()).getFirst();
            assertThat(d.getDevice()).isEqualTo(mdev);
            assertThat(data(d)).containsEntry("mdevUUID", "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27").containsKeys("parentPCIBusID", "iommuGroup", "resourceName")
                    .doesNotContainKey("pciBusID");
        }
    }

    @Test
    void aStatusTheApiRefusesNeverFailsThePrepare() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            h.api.server().expect().patch().withPath("/apis/resource.k8s.io/v1/namespaces/vms/resourceclaims/gpu-claim/status")
                    .andReturn(403, new StatusBuilder().withCode(403).withReason("Forbidden").withMessage("resourceclaims/status is forbidden")
                            .build()).always();
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu-claim", "u", Claims.ours("pci-0000-1a-00-0")));

            assertThat(prepare(h, c)).isEmpty();
            // a second claim after the refusal is prepared and written as ever
            ResourceClaim other = Claims.create(h.api.client(), Claims.allocated("other", "u2", Claims.ours("pci-0000-1b-00-0")));
            assertThat(prepare(h, other)).isEmpty();
            await().atMost(WAIT).until(() -> statusDevices(h, "other"), l -> l.size() == 1);
            assertThat(statusDevices(h, "gpu-claim")).isEmpty();
        }
    }
}
