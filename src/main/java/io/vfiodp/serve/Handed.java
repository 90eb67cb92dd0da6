package io.vfiodp.serve;

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
final class Handed {

    private record Pending(Set<String> devices, CompletableFuture<Void> takenIn) {}

    private final Deque<Pending> pending = new ArrayDeque<>();
    private Set<String> taken = Set.of();

    void handed(Set<String> devices, CompletableFuture<Void> takenIn) {
        pending.addLast(new Pending(Set.copyOf(devices), takenIn));
    }

    /** The devices the side may offer, after waiting up to {@code wait} for it to take in the last state handed. */
    Set<String> mayOffer(Duration wait) {
        if (!pending.isEmpty()) {
            try {
                pending.getLast().takenIn().get(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException e) {
                // not taken in yet: counted as offered, with every state before it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        while (!pending.isEmpty() && pending.getFirst().takenIn().isDone()) taken = pending.removeFirst().devices();
        Set<String> out = new HashSet<>(taken);
        pending.forEach(p -> out.addAll(p.devices()));
        return out;
    }
}
