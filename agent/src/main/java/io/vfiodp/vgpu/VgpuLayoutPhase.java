package io.vfiodp.vgpu;

import io.vfiodp.policy.config.ConfigSource.LayoutSetting;
import io.vfiodp.triggers.ProblemLog;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * {@code serve --manage-vgpus}: the step of every pass that comes before the scan. It brings the
 * vGPU layout in line with the configuration (creating and removing mdev instances and SR-IOV vGPU
 * types), so that the scan after it sees the new vGPUs and the device servers get them in the same
 * pass. A layout that cannot be read or written never stops serving: the pass goes on to the scan.
 * Called on the pass thread only.
 */
public final class VgpuLayoutPhase {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.vgpu");

    private final LayoutManager manager;
    private final ProblemLog problems = new ProblemLog(log, Level.ERROR);
    private LayoutSetting last = new LayoutSetting.None();

    public VgpuLayoutPhase(LayoutManager manager) {
        this.manager = Objects.requireNonNull(manager, "manager");
    }

    /**
     * Applies {@code setting}: writes sysfs when it names types and creation is enabled, else leaves the host alone.
     *
     * @return whether anything was written to sysfs (the scan after it must then read the whole host)
     */
    public boolean apply(LayoutSetting setting) {
        switch (setting) {
            case LayoutSetting.None n -> describeChange(setting, "vGPU layout: desired types none configured (from -)");
            case LayoutSetting.Unreadable u -> problems.problem("vGPU layout not managed this pass: " + u.problem());
            case LayoutSetting.Desired d -> {
                describeChange(setting, "vGPU layout: desired types " + d.types().types() + " (from " + d.source() + " " + d.types().origin() + ")");
                problems.forget();
                if (!d.types().creationEnabled()) return false;
                try {
                    return manager.reconcile(d.types().types()).writes() > 0;
                } catch (RuntimeException e) {
                    problems.problem("vGPU layout not managed this pass: " + e.getMessage());
                    // a write may have been made before the failure
                    return true;
                }
            }
        }
        return false;
    }

    private void describeChange(LayoutSetting now, String line) {
        if (now.equals(last)) return;
        if (!(now instanceof LayoutSetting.None) || !(last instanceof LayoutSetting.None)) log.info("{}", line);
        last = now;
    }
}
