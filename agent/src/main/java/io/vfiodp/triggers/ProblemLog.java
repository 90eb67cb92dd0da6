package io.vfiodp.triggers;

import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * Logs a problem that lasts once, when it appears or changes, not on every retry; and once more
 * when it is over. Confined to one thread, like the retries it reports on.
 */
public final class ProblemLog {

    private final Logger log;
    private final Level level;
    private String current;

    /** Problems at WARN. */
    public ProblemLog(Logger log) {
        this(log, Level.WARN);
    }

    public ProblemLog(Logger log, Level level) {
        this.log = Objects.requireNonNull(log, "log");
        this.level = Objects.requireNonNull(level, "level");
    }

    /** A line with {@code message} when {@code problem} differs from the last one; true when it was logged. */
    public boolean problem(String problem, String message) {
        if (problem.equals(current)) return false;
        current = problem;
        log.atLevel(level).log(message);
        return true;
    }

    /** As {@link #problem(String, String)}, the problem being its own message. */
    public boolean problem(String problem) {
        return problem(problem, problem);
    }

    /** The problem is over: an INFO line with {@code message} when one was logged. */
    public void resolved(String message) {
        if (current == null) return;
        log.info("{}", message);
        current = null;
    }

    /** Forgets the problem without a line (the thing it was about is gone). */
    public void forget() {
        current = null;
    }

    /** The problem last logged and not resolved since, or null. */
    public String current() {
        return current;
    }
}
