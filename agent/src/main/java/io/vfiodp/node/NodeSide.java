package io.vfiodp.node;

import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One side the node loop hands every pass's state to: the device plugins or the DRA driver. Each
 * serves only its part of a state (the device plugins {@link TargetState#plugins()}, DRA
 * {@link TargetState#dra()}); the state as a whole goes to both, so each side reads the same
 * {@code /dev} nodes.
 */
public interface NodeSide {

    /**
     * Serve the part of {@code state} routed to this side from now on. Only enqueues, on the
     * pass's thread; the answer completes once the side has taken it in (its handlers decide on it).
     */
    CompletableFuture<Void> apply(TargetState state);

    /** The IDs of the devices this side offers while it serves {@code state}: its part of it. */
    Set<String> offers(TargetState state);
}
