package io.vfiodp.plugin;

/**
 * One resource's gRPC server as the reconcile step sees it. A generation names one server
 * instance, unique across all resources of a loop, so that an answer meant for a server that
 * has since been replaced (or for a resource removed and added again) is recognised as stale.
 */
sealed interface ServerState {

    /**
     * No server. Start one at {@code nextStart}; {@code failures} starts have failed in a row,
     * the last with {@code problem} ({@code null} when none failed).
     */
    record Down(long nextStart, int failures, String problem) implements ServerState {}

    /** Asked to start as {@code generation}, serving {@code view}; the outcome comes back as an event. */
    record Starting(long generation, ResourceView view, int failures, String problem) implements ServerState {}

    /** Serving {@code view} as {@code generation}. */
    record Up(long generation, ResourceView view, Registration registration) implements ServerState {

        Up withRegistration(Registration next) {
            return new Up(generation, view, next);
        }
    }
}
