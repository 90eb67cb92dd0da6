package io.vfiodp.plugin;

/**
 * Where a running server stands with the kubelet. A registration belongs to one server
 * generation (it is read only while that server serves) and to one kubelet epoch: a new kubelet
 * or a new server starts over at {@link Unregistered}.
 */
sealed interface Registration {

    /** Not registered with the present kubelet: try at {@code nextAttempt}, after {@code failures} failed tries. */
    record Unregistered(long nextAttempt, int failures) implements Registration {}

    /**
     * A {@code Register} for kubelet {@code epoch} is on the wire. Nothing else is sent while it
     * is: a kubelet that gets a second Register for a resource drops the connection it opened
     * for the first, failing Allocate calls in flight on it.
     */
    record InFlight(long epoch, int failures) implements Registration {}

    /** Kubelet {@code epoch} accepted it. */
    record Registered(long epoch) implements Registration {}

    /** Ready to register at once, earlier failures forgotten. */
    static Registration soon(long now) {
        return new Unregistered(now, 0);
    }
}
