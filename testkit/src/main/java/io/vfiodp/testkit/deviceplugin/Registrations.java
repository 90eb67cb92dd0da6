package io.vfiodp.testkit.deviceplugin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * The registrations the kubelet accepted and refused, across its runs. A Register call belongs to
 * the run it reached: once that run has stopped ({@link #stopped()}), its answer counts for nothing,
 * as a restarted kubelet is a new process. Waiters are woken at every change.
 */
final class Registrations {

    private final List<KubeletSimulator.Registration> accepted = new ArrayList<>();
    private final List<String> refused = new ArrayList<>();
    // which kubelet run a Register call reached (bumped when one stops), and where the current run's registrations begin
    private long run;
    private int firstOfThisRun;

    /** The run a Register call that arrives now belongs to. */
    synchronized long run() {
        return run;
    }

    /** A run begins: {@link #sinceRestart()} starts from here. */
    synchronized void started() {
        firstOfThisRun = accepted.size();
    }

    /** The current run ends: calls that reached it are answered, but no longer count. */
    synchronized void stopped() {
        run++;
    }

    /**
     * Records {@code registration}, with {@code connect} run under the same lock first, when
     * {@code run} is still the current one; false, with neither, when the kubelet stopped meanwhile.
     */
    synchronized boolean accept(long run, KubeletSimulator.Registration registration, Runnable connect) {
        if (run != this.run) return false;
        connect.run();
        accepted.add(registration);
        notifyAll();
        return true;
    }

    /** Records why a Register call of {@code run} was refused, when that run is still the current one. */
    synchronized void refuse(long run, String why) {
        if (run == this.run) refused.add(why);
        notifyAll();
    }

    synchronized List<KubeletSimulator.Registration> all() {
        return List.copyOf(accepted);
    }

    synchronized List<KubeletSimulator.Registration> sinceRestart() {
        return List.copyOf(accepted.subList(firstOfThisRun, accepted.size()));
    }

    synchronized List<String> rejections() {
        return List.copyOf(refused);
    }

    /** Waits until each of {@code resources} has registered at least {@code times} times in all. */
    synchronized void await(Collection<String> resources, int times, Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> missing = new ArrayList<>();
            for (String r : resources) {
                if (accepted.stream().filter(x -> x.resourceName().equals(r)).count() < times) missing.add(r);
            }
            if (missing.isEmpty()) return;
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new TimeoutException("not registered " + times + " time(s) within " + timeout + ": " + missing
                    + "; rejections: " + refused);
            wait(Math.max(1, left / 1_000_000));
        }
    }
}
