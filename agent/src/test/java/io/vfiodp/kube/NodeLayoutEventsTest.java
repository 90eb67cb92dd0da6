package io.vfiodp.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.vgpu.LayoutState;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NodeLayoutEventsTest {

    private final MockKubeApi api = MockKubeApi.start();
    private final NodeEventRecorder recorder = new NodeEventRecorder(api.client(), "gpu-node-1");

    @AfterEach
    void tearDown() {
        recorder.close();
        api.close();
    }

    private NodeLayoutEvents events(KubernetesClient client) {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-node-1")
                .withLabels(Map.of("gpu-profile", "big")).endMetadata().build()).create();
        return new NodeLayoutEvents(client, "gpu-node-1", recorder);
    }

    @Test
    void theLayoutStateIsAnAnnotationOnTheNode() {
        NodeLayoutEvents events = events(api.client());

        events.state(LayoutState.FAILED, "1 write(s) failed");

        assertThat(api.client().nodes().withName("gpu-node-1").get().getMetadata().getAnnotations())
                .containsEntry("vfio-device-plugin/vgpu-layout-state", "failed: 1 write(s) failed");
    }

    @Test
    void anUnreachableApiDoesNotStopTheLayout() {
        try (KubernetesClient nowhere = MockKubeApi.clientFor(MockKubeApi.freePort())) {
            NodeLayoutEvents events = new NodeLayoutEvents(nowhere, "gpu-node-1", recorder);

            assertThatCode(() -> events.state(LayoutState.PENDING, "3 write(s) planned")).doesNotThrowAnyException();
        }
    }
}
