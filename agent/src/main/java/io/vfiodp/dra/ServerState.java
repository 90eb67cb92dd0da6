package io.vfiodp.dra;

/**
 * One of the driver's two gRPC servers as the step sees it. A generation names one server
 * instance, unique across both sockets, so that an outcome meant for a server since replaced is
 * recognised as stale.
 */
sealed interface ServerState {

    /**
     * No server. Start one at {@code nextStart}; {@code failures} starts have failed in a row, the
     * last with {@code problem} ({@code null} when none failed).
     */
    record Down(long nextStart, int failures, String problem) implements ServerState {}

    /** Asked to start as {@code generation}; the outcome comes back as an event. */
    record Starting(long generation, int failures, String problem) implements ServerState {}

    /** Serving as {@code generation}. */
    record Up(long generation) implements ServerState {}

    /** A server to start at once, nothing failed before. */
    static ServerState dueAt(long now) {
        return new Down(now, 0, null);
    }
}
