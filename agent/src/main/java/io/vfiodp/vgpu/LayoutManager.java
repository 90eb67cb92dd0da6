package io.vfiodp.vgpu;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.VgpuVf;
import io.vfiodp.triggers.ProblemLog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Brings the host to the desired vGPU layout: scan, plan, write, and again, until a plan is
 * empty (done), a round makes no successful write (stuck: reported as failed) or
 * {@value #MAX_ROUNDS} rounds have run. Rounds are needed because the kernel only tells what is
 * possible next after a write: a removed mdev frees room for another type, and each placed
 * SR-IOV vGPU shrinks the siblings' {@code creatable_vgpu_types}. Called by one thread only.
 */
public final class LayoutManager {

    static final int MAX_ROUNDS = 64;
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.vgpu");

    private final Supplier<HostSnapshot> scan;
    private final Supplier<Allocated> allocated;
    private final LayoutPlanner planner;
    private final LayoutExecutor executor;
    private final StateFile stateFile;
    private final LayoutEvents events;
    private Optional<OwnedDevices> owned = Optional.empty();
    private final ProblemLog stateErrors = new ProblemLog(log, Level.ERROR);

    public LayoutManager(Supplier<HostSnapshot> scan, Supplier<Allocated> allocated, LayoutPlanner planner, LayoutExecutor executor,
                         StateFile stateFile, LayoutEvents events) {
        this.scan = scan;
        this.allocated = allocated;
        this.planner = planner;
        this.executor = executor;
        this.stateFile = stateFile;
        this.events = events;
    }

    /** How a reconcile ended. */
    public record Outcome(LayoutState state, int writes, String message) {}

    public Outcome reconcile(List<String> desired) {
        OwnedDevices mine;
        try {
            mine = owned.isPresent() ? owned.get() : stateFile.read();
        } catch (IOException e) {
            // never read as none: a damaged list could name another owner's vGPU, and removing that would break its VM
            return paused(e.getMessage() + "; which vGPUs this plugin made is not known, so it creates and removes none. Moving the file"
                    + " away is safe: the plugin then counts no vGPU as its own and removes none (those it made stay until removed by hand)");
        }
        owned = Optional.of(mine);
        int writes = 0;
        List<String> failures = new ArrayList<>();
        for (int round = 1; round <= MAX_ROUNDS; round++) {
            HostSnapshot snapshot = scan.get();
            OwnedDevices present = stillPresent(mine, snapshot);
            List<PlannedWrite> plan = planner.plan(snapshot, desired, present, allocated.get());
            if (plan.isEmpty()) {
                if (!present.equals(mine)) {
                    try {
                        stateFile.write(present);
                    } catch (IOException e) {
                        return paused(e.getMessage());
                    }
                    mine = present;
                    owned = Optional.of(mine);
                }
                stateErrors.forget();
                List<String> blocked = LayoutPlanner.blocked(snapshot, desired);
                if (failures.isEmpty() && !blocked.isEmpty()) {
                    String message = "layout not reachable: " + String.join("; ", blocked) + " (not ours or in use; left alone)";
                    events.state(LayoutState.FAILED, message);
                    return new Outcome(LayoutState.FAILED, writes, message);
                }
                if (failures.isEmpty()) {
                    String message = writes == 0 ? "layout in place: " + String.join(", ", desired) : writes + " write(s) made; layout in place";
                    events.state(LayoutState.SUCCESS, message);
                    return new Outcome(LayoutState.SUCCESS, writes, message);
                }
                break;
            }
            if (round == 1) events.state(LayoutState.PENDING, plan.size() + " write(s) planned");
            LayoutExecutor.Result result;
            try {
                result = executor.execute(plan, present);
            } catch (LayoutExecutor.StateUnwritable e) {
                owned = Optional.empty();
                return paused(e.getMessage());
            }
            stateErrors.forget();
            mine = result.owned();
            owned = Optional.of(mine);
            writes += result.succeeded();
            failures.addAll(result.failures());
            if (result.succeeded() == 0) break;
        }
        String message = failures.isEmpty() ? "layout not reached after " + MAX_ROUNDS + " rounds"
                : failures.size() + " write(s) failed, first: " + failures.get(0);
        events.state(LayoutState.FAILED, message);
        return new Outcome(LayoutState.FAILED, writes, message);
    }

    private Outcome paused(String error) {
        String message = "vGPU layout management paused: " + error + " (devices are still served)";
        if (stateErrors.problem(message)) {
            events.warn("VgpuLayoutStateUnwritable", message);
            events.state(LayoutState.FAILED, message);
        }
        return new Outcome(LayoutState.FAILED, 0, message);
    }

    /** Forgets vGPUs that are gone (removed by hand, host rebooted), so a reused VF is not taken for ours. */
    private static OwnedDevices stillPresent(OwnedDevices owned, HostSnapshot snapshot) {
        TreeSet<String> mdevs = new TreeSet<>(owned.mdevs());
        mdevs.retainAll(snapshot.mdevs().keySet());
        TreeSet<PciAddress> vfs = new TreeSet<>();
        for (PciAddress a : owned.vfs()) {
            VgpuVf vf = snapshot.vgpuVfs().get(a);
            if (vf != null && vf.currentTypeId() != 0) vfs.add(a);
        }
        return new OwnedDevices(mdevs, vfs);
    }
}
