package io.vfiodp.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vfiodp.triggers.ProblemLog;
import io.vfiodp.vgpu.LayoutEvents;
import io.vfiodp.vgpu.LayoutState;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LayoutEvents} on the Node object: Warning Events through {@link NodeEventRecorder}, and
 * the {@value LayoutEvents#ANNOTATION} annotation as a JSON merge patch (needs {@code patch} on
 * {@code nodes}). The annotation is patched only when its value changes; an unreachable API is
 * logged once per distinct error and does not stop the layout.
 */
public final class NodeLayoutEvents implements LayoutEvents {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.vgpu");

    private final KubernetesClient client;
    private final String nodeName;
    private final NodeEventRecorder recorder;
    private final ProblemLog patchErrors = new ProblemLog(log);
    private String lastValue;

    public NodeLayoutEvents(KubernetesClient client, String nodeName, NodeEventRecorder recorder) {
        this.client = client;
        this.nodeName = nodeName;
        this.recorder = recorder;
    }

    @Override
    public void warn(String reason, String message) {
        recorder.warn(reason, message);
    }

    @Override
    public void state(LayoutState state, String message) {
        String value = state.wireValue() + ": " + message;
        if (value.equals(lastValue)) return;
        try {
            client.genericKubernetesResources(CoreResources.NODES).withName(nodeName).patch(PatchContext.of(PatchType.JSON_MERGE),
                    io.fabric8.kubernetes.client.utils.Serialization.asJson(Map.of("metadata", Map.of("annotations", Map.of(ANNOTATION, value)))));
            lastValue = value;
            patchErrors.forget();
        } catch (KubernetesClientException e) {
            patchErrors.problem("cannot annotate node " + nodeName + " with " + ANNOTATION + ": " + e.getMessage());
        }
    }
}
