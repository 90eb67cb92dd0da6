package io.vfiodp.kubelet;

import io.vfiodp.triggers.Backoff;
import java.util.Objects;

/**
 * A served socket's gRPC server as a step sees it: down (started when due), starting (the outcome
 * comes back as an event), or up. A generation names one server instance, unique across all the
 * servers of a loop, so that an outcome meant for a server since replaced is recognised as stale.
 * A failed start is retried on the backoff for ever; the failures in a row and the last problem
 * are kept until a start succeeds, so that a side logs a problem when it is new, not on every
 * attempt. Times are a {@code Ticker}'s nanoseconds, compared by difference so that a wrap does not
 * matter.
 */
public sealed interface ServerState {

    /**
     * No server. Start one at {@code nextStart}; {@code failures} starts have failed in a row, the
     * last with {@code problem} ({@code null} when none failed).
     */
    record Down(long nextStart, int failures, String problem) implements ServerState {

        public boolean dueBy(long now) {
            return now - nextStart >= 0;
        }

        /** Due at {@code now}, the failures so far kept (the socket's directory changed: a start may well succeed now). */
        public Down retryAt(long now) {
            return new Down(now, failures, problem);
        }

        /** Asked to start as {@code generation}. */
        public Starting start(long generation) {
            return new Starting(generation, failures, problem);
        }
    }

    /** Asked to start as {@code generation}; the outcome comes back as an event. */
    record Starting(long generation, int failures, String problem) implements ServerState {

        /** It serves: the failures before are forgotten. */
        public Up started() {
            return new Up(generation);
        }

        /** The start failed with {@code next}: down until the backoff after one failure more has passed. */
        public Down failed(String next, Backoff backoff, long now) {
            int failed = failures + 1;
            return new Down(now + backoff.delayAfter(failed).toNanos(), failed, next);
        }

        /** Whether {@code next} is another problem than the last start's (or the first): then it is worth a log line. */
        public boolean isNew(String next) {
            return !Objects.equals(next, problem);
        }
    }

    /** Serving as {@code generation}. */
    record Up(long generation) implements ServerState {}

    /** A server to start at once, nothing failed before. */
    static Down dueAt(long now) {
        return new Down(now, 0, null);
    }
}
