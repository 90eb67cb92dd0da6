package io.vfiodp.vgpu;

import io.vfiodp.kube.kubevirt.DesiredMdevTypes;
import io.vfiodp.node.NodeStateSource;
import io.vfiodp.node.TargetState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;

/**
 * {@code serve --manage-vgpus}: before every read of the node state (start, each rescan, a
 * configuration change picked up by a rescan) brings the vGPU layout in line, then lets the
 * wrapped source scan. New vGPUs therefore reach the device servers through the same reconcile
 * loop, in the same pass that made them. A layout that cannot be read or written never stops
 * serving: the wrapped source is read regardless.
 */
public final class VgpuLayoutSource implements NodeStateSource {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.vgpu");

    /** The desired types, or empty when no layout is configured; may throw to say the configuration is unreadable. */
    @FunctionalInterface
    public interface DesiredSource {
        Optional<DesiredMdevTypes> read() throws Exception;
    }

    private final DesiredSource desired;
    private final LayoutManager manager;
    private final NodeStateSource serving;
    private String lastProblem;
    private Optional<DesiredMdevTypes> last = Optional.empty();

    public VgpuLayoutSource(DesiredSource desired, LayoutManager manager, NodeStateSource serving) {
        this.desired = desired;
        this.manager = manager;
        this.serving = serving;
    }

    @Override
    public synchronized TargetState read() {
        try {
            Optional<DesiredMdevTypes> d = desired.read();
            if (!d.equals(last)) {
                log.info("vGPU layout: desired types {} (from {})", d.map(t -> t.types().toString()).orElse("none configured"),
                        d.map(DesiredMdevTypes::origin).orElse("-"));
                last = d;
            }
            lastProblem = null;
            if (d.isPresent() && d.get().creationEnabled()) manager.reconcile(d.get().types());
        } catch (Exception e) {
            String problem = "vGPU layout not managed this pass: " + e.getMessage();
            if (!problem.equals(lastProblem)) log.error("{}", problem);
            lastProblem = problem;
        }
        return serving.read();
    }
}
