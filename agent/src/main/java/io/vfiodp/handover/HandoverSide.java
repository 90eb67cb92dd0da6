package io.vfiodp.handover;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What one side (the device plugins, the DRA driver) may offer: the devices of the last state it
 * took in, and of every state handed to it since. A side takes states in the order they come, so
 * once one is taken in, those before it are over. Confined to the pass's thread.
 */
final class HandoverSide {

    private record Pending(Set<String> devices, CompletableFuture<Void> takenIn) {}

    private final Deque<Pending> pending = new ArrayDeque<>();
    private Set<String> taken = Set.of();

    /** States a side has not taken in are merged beyond this many: the older ones end when a later one is taken in anyway. */
    static final int MAX_PENDING = 4;

    void handed(Set<String> devices, CompletableFuture<Void> takenIn) {
        pending.addLast(new Pending(Set.copyOf(devices), takenIn));
        if (pending.size() > MAX_PENDING) {
            Pending oldest = pending.removeFirst();
            Pending next = pending.removeFirst();
            Set<String> both = new HashSet<>(oldest.devices());
            both.addAll(next.devices());
            pending.addFirst(new Pending(Set.copyOf(both), next.takenIn()));
        }
    }

    /** The devices the side may offer, after waiting up to {@code wait} for it to take in the last state handed. */
    Set<String> mayOffer(Duration wait) {
        awaitLast(wait);
        while (!pending.isEmpty() && pending.getFirst().takenIn().isDone()) taken = pending.removeFirst().devices();
        Set<String> out = new HashSet<>(taken);
        pending.forEach(p -> out.addAll(p.devices()));
        return out;
    }

    /** Waits up to {@code wait} for the side to take in the last state handed. */
    void awaitLast(Duration wait) {
        if (pending.isEmpty()) return;
        try {
            pending.getLast().takenIn().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // not taken in yet: counted as offered, with every state before it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
