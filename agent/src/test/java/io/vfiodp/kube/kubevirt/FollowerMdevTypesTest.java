package io.vfiodp.kube.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.policy.config.ConfigSource.LayoutSetting;
import io.vfiodp.policy.config.DesiredMdevTypes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What {@code serve --manage-vgpus} reads from the CR: the node's resolved mdev types. */
class FollowerMdevTypesTest {

    private final MockKubeApi api = MockKubeApi.start().withKubeVirtCrd();
    private KubernetesClient client;
    private KubeVirtPolicyFollower follower;

    @AfterEach
    void tearDown() {
        if (follower != null) follower.close();
        if (client != null) client.close();
        api.close();
    }

    private Optional<DesiredMdevTypes> followCr(String mediatedDevicesConfiguration) {
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-node-1")
                .withLabels(Map.of("gpu-profile", "big")).endMetadata().build()).create();
        api.client().resource(Serialization.unmarshal("""
                apiVersion: kubevirt.io/v1
                kind: KubeVirt
                metadata: {name: kubevirt, namespace: kubevirt}
                spec:
                  configuration:
                    %s
                status: {phase: Deployed}
                """.formatted(mediatedDevicesConfiguration), KubeVirt.class)).create();
        client = MockKubeApi.clientFor(api.port());
        follower = KubeVirtPolicyFollower.start(client, Optional.of("gpu-node-1"), Optional.empty(),
                readable -> { }, Duration.ofSeconds(10));
        return follower.configs().current().layout() instanceof LayoutSetting.Desired d ? Optional.of(d.types()) : Optional.empty();
    }

    @Test
    void theCrsTypesForThisNodeAreOffered() {
        assertThat(followCr("mediatedDevicesConfiguration: {mediatedDeviceTypes: [GRID_T4-1Q], "
                + "nodeMediatedDeviceTypes: [{nodeSelector: {gpu-profile: big}, mediatedDeviceTypes: [GRID_T4-4Q]}]}"))
                .contains(new DesiredMdevTypes(List.of("GRID_T4-4Q"), true, "nodeMediatedDeviceTypes[0]"));
    }

    @Test
    void aCrWithoutTypesLeavesTheLayoutToTheConfigFile() {
        assertThat(followCr("developerConfiguration: {featureGates: [GPU]}")).isEmpty();
    }
}
