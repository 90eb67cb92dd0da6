package io.vfiodp.kube;

import io.vfiodp.holders.HealthNotices;
import io.vfiodp.holders.Holder;
import io.vfiodp.holders.PodDetails;
import io.vfiodp.policy.Health;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A held device's health changes as Events on the pod that holds it and on the VMI that pod runs,
 * so that {@code kubectl describe vmi} tells the VM's owner, not only the node's. Posted through
 * the node's {@link NodeEventRecorder} (its queue never blocks the caller); a pod the API does not
 * list (no UID to name it by) gets none.
 */
public final class HolderEvents {

    static final String UNHEALTHY = HealthEvents.UNHEALTHY;
    static final String HEALTHY = HealthEvents.HEALTHY;

    private final NodeEventRecorder recorder;
    private final Supplier<PodDetails> pods;

    /** @param pods the pods of this node as the API lists them: their UIDs */
    public HolderEvents(NodeEventRecorder recorder, Supplier<PodDetails> pods) {
        this.recorder = recorder;
        this.pods = pods;
    }

    public void tell(List<HealthNotices.Notice> notices) {
        PodDetails details = pods.get();
        for (HealthNotices.Notice n : notices) {
            Holder h = n.holder();
            Optional<PodDetails.Pod> pod = details.pod(h.namespace(), h.pod());
            if (pod.isEmpty()) continue;
            String device = "device " + n.device().id() + " (" + n.device().resource().value() + ")";
            String health = n.device().health() instanceof Health.Unhealthy(String reason) ? "is Unhealthy: " + reason : "is Healthy again";
            String containers = (n.containers().size() == 1 ? "container " : "containers ") + String.join(", ", n.containers());
            post(n.unhealthy(), NodeEventRecorder.About.pod(h.namespace(), h.pod(), pod.get().uid()),
                    device + ", held by " + containers + ", " + health);
            h.vmi().ifPresent(vmi -> post(n.unhealthy(), NodeEventRecorder.About.vmi(h.namespace(), vmi.name(), vmi.uid()),
                    device + ", held by pod " + h.podName() + ", " + health));
        }
    }

    private void post(boolean unhealthy, NodeEventRecorder.About about, String message) {
        if (unhealthy) recorder.warn(about, UNHEALTHY, message);
        else recorder.normal(about, HEALTHY, message);
    }
}
