package io.vfiodp.doctor;

import java.util.List;

/**
 * The report for a terminal: one line per finding ({@code ok}, {@code warn} or {@code fail}, the
 * check, the device when there is one, what was found), the fix indented below a warn or fail,
 * and the verdict last.
 */
public final class ReportText {

    private static final int MAX_LABEL = 34;

    private ReportText() {}

    public static String format(Report report) {
        int width = 0;
        for (Finding f : report.findings()) width = Math.max(width, label(f).length());
        width = Math.min(width, MAX_LABEL);
        StringBuilder out = new StringBuilder();
        for (Finding f : report.findings()) {
            out.append(String.format("%-4s  %-" + width + "s  %s%n", f.severity().word(), label(f), f.outcome().detail()));
            switch (f.outcome()) {
                case Outcome.Warn w -> fix(out, w.fix());
                case Outcome.Fail x -> fix(out, x.fix());
                case Outcome.Ok ok -> { }
            }
        }
        out.append(report.tally()).append(System.lineSeparator());
        return out.toString();
    }

    private static String label(Finding f) {
        return f.check() + f.subject().map(s -> " " + s).orElse("");
    }

    private static void fix(StringBuilder out, Fix fix) {
        out.append("      fix: ").append(fix.advice()).append(System.lineSeparator());
        commands(out, "now", fix.now());
        commands(out, "for good", fix.forGood());
    }

    private static void commands(StringBuilder out, String when, List<String> lines) {
        if (lines.isEmpty()) return;
        out.append("        ").append(when).append(':').append(System.lineSeparator());
        for (String l : lines) out.append("          ").append(l).append(System.lineSeparator());
    }
}
