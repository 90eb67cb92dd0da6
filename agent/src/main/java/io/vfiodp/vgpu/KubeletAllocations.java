package io.vfiodp.vgpu;

import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.triggers.ProblemLog;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the layout step asks before it removes a vGPU: the kubelet's PodResources, read through the
 * client serve shares. When it cannot answer, nothing is proven free; the first failure is logged,
 * then nothing until it answers again. Called from the pass's thread only.
 */
public final class KubeletAllocations implements Supplier<Allocated> {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.vgpu");

    private final Supplier<PodResourcesReading> podResources;
    private final ProblemLog unavailable = new ProblemLog(log);

    public KubeletAllocations(Supplier<PodResourcesReading> podResources) {
        this.podResources = podResources;
    }

    @Override
    public Allocated get() {
        PodResourcesReading reading = podResources.get();
        switch (reading) {
            // the first failure says what to do; the next ones, whatever their reason, add nothing until it answers again
            case PodResourcesReading.Unreadable u -> unavailable.problem("unavailable",
                    u.reason() + "; vGPUs are not removed or cleared until it answers (cannot prove them free)");
            case PodResourcesReading.Listed l -> unavailable.resolved("the kubelet's PodResources API answers again");
        }
        return Allocated.of(reading);
    }
}
