package io.vfiodp.bench;

import io.vfiodp.bench.RunSamples.Figure;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * The medians of every contender side by side, and each image after the first set against the
 * first: the first is the plugin as it is, each other one the same plugin with one start-up
 * mechanism taken out (a variant built from a branch without it), so the first's figure is the
 * mechanism's "on" and the variant's its "off". A mechanism buys a figure when taking it out makes
 * that figure worse by {@value #WORTH_PERCENT}% or more; only the figures a user sees count
 * ({@link Figure#userSees}, and every event → ListAndWatch latency).
 */
final class ContenderTable {

    static final int WORTH_PERCENT = 10;

    /** One contender's name and samples. */
    record Column(String name, RunSamples samples) {}

    /** A figure's unit and whether a user sees it; a figure of the event benches is a latency in ms, and seen. */
    record Kind(String unit, boolean userSees) {
        static Kind of(String figure) {
            return Arrays.stream(Figure.values()).filter(f -> f.key().equals(figure)).findFirst()
                    .map(f -> new Kind(f.unit, f.userSees)).orElse(new Kind("ms", figure.startsWith(EventBenches.PREFIX)));
        }
    }

    private ContenderTable() {}

    /** A markdown table: a row per figure, a column per contender, medians; "–" where a contender has no value. */
    static List<String> byContender(List<Column> columns) {
        List<String> out = new ArrayList<>();
        StringBuilder head = new StringBuilder("| figure |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Column c : columns) {
            head.append(' ').append(c.name()).append(" |");
            rule.append("---|");
        }
        out.add(head.toString());
        out.add(rule.toString());
        for (String figure : figures(columns)) {
            StringBuilder row = new StringBuilder("| " + figure + " (" + Kind.of(figure).unit() + ") |");
            for (Column c : columns) {
                OptionalDouble m = c.samples().median(figure);
                row.append(' ').append(m.isPresent() ? number(m.getAsDouble()) : "–").append(" |");
            }
            out.add(row.toString());
        }
        return out;
    }

    /** A markdown table of {@code off} against {@code on}: per figure both medians, the difference, and whether on buys it. */
    static List<String> onOff(Column on, Column off) {
        List<String> out = new ArrayList<>();
        out.add("| figure | on (" + on.name() + ") | off (" + off.name() + ") | off − on | buys ≥ " + WORTH_PERCENT + "% |");
        out.add("|---|---|---|---|---|");
        for (String figure : figures(List.of(on, off))) {
            Optional<Double> change = change(on, off, figure);
            if (change.isEmpty()) continue;
            Kind kind = Kind.of(figure);
            double a = on.samples().median(figure).getAsDouble();
            double b = off.samples().median(figure).getAsDouble();
            out.add(String.format(Locale.ROOT, "| %s | %s %s | %s %s | %+.1f%% | %s |", figure, number(a), kind.unit(), number(b), kind.unit(),
                    change.get() * 100, !kind.userSees() ? "(not a user's figure)" : buys(change.get()) ? "yes" : "no"));
        }
        return out;
    }

    /** The user-seen figures that {@code on} buys 10% or more of against {@code off}. */
    static List<String> bought(Column on, Column off) {
        List<String> bought = new ArrayList<>();
        for (String figure : figures(List.of(on, off))) {
            if (Kind.of(figure).userSees() && change(on, off, figure).filter(ContenderTable::buys).isPresent()) bought.add(figure);
        }
        return bought;
    }

    private static boolean buys(double change) {
        return change * 100 >= WORTH_PERCENT;
    }

    /** (off − on) ÷ on of the medians; empty when either has no value or on's is zero. */
    static Optional<Double> change(Column on, Column off, String figure) {
        OptionalDouble a = on.samples().median(figure);
        OptionalDouble b = off.samples().median(figure);
        if (a.isEmpty() || b.isEmpty() || a.getAsDouble() == 0) return Optional.empty();
        return Optional.of((b.getAsDouble() - a.getAsDouble()) / a.getAsDouble());
    }

    private static Set<String> figures(List<Column> columns) {
        Set<String> all = new LinkedHashSet<>();
        for (Column c : columns) all.addAll(c.samples().figures());
        return all;
    }

    static String number(double v) {
        if (Math.abs(v) >= 100 || v == Math.rint(v)) return String.format(Locale.ROOT, "%,.0f", v);
        return String.format(Locale.ROOT, Math.abs(v) >= 10 ? "%.1f" : "%.2f", v);
    }
}
