package io.vfiodp.doctor;

import java.util.List;

/**
 * What to change, for a warn or fail outcome.
 *
 * @param advice  one sentence: what to do and why
 * @param now     shell commands that change the running host, in order; empty when only a reboot or
 *                a change outside the host (firmware, cluster) helps
 * @param forGood what keeps the change across reboots: commands, or lines of files as commands that write them
 */
public record Fix(String advice, List<String> now, List<String> forGood) {

    public Fix {
        if (advice == null || advice.isBlank()) throw new IllegalArgumentException("a fix needs advice");
        now = List.copyOf(now);
        forGood = List.copyOf(forGood);
    }

    /** Advice alone. */
    public static Fix advice(String advice) {
        return new Fix(advice, List.of(), List.of());
    }

    /** Advice and the commands that apply it now. */
    public static Fix now(String advice, List<String> commands) {
        return new Fix(advice, commands, List.of());
    }

    /** Advice and what makes it last. */
    public static Fix forGood(String advice, List<String> commands) {
        return new Fix(advice, List.of(), commands);
    }
}
