package io.vfiodp.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Live objects per class, as {@code jcmd GC.class_histogram} reports them after its full GC. Two
 * of them, from the end of warm-up and from the end of the run, name what a heap that grew is
 * growing with.
 */
record HeapHistogram(Map<String, Count> byClass) {

    /** {@code "   4:          4986         640704  java.lang.Class (java.base@25.0.3)"} */
    private static final Pattern ROW = Pattern.compile("(?m)^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
    /** Not objects: the JVM fills the unused ends of allocation buffers with these arrays to keep the heap walkable. */
    private static final String FILLER = "[Ljdk.internal.vm.FillerElement;";

    record Count(long instances, long bytes) {}

    HeapHistogram {
        byClass = Map.copyOf(byClass);
    }

    static HeapHistogram parse(String classHistogram) throws IOException {
        Map<String, Count> counts = new HashMap<>();
        Matcher m = ROW.matcher(classHistogram);
        while (m.find()) {
            if (m.group(3).equals(FILLER)) continue;
            counts.merge(m.group(3), new Count(Long.parseLong(m.group(1)), Long.parseLong(m.group(2))),
                    (a, b) -> new Count(a.instances + b.instances, a.bytes + b.bytes));
        }
        if (counts.isEmpty()) throw new IOException("no class rows in GC.class_histogram: " + classHistogram.lines().limit(3).toList());
        return new HeapHistogram(counts);
    }

    /** The {@code top} classes that grew most in bytes since {@code earlier}, one line each; none when nothing grew. */
    List<String> growthSince(HeapHistogram earlier, int top) {
        record Growth(String name, long instances, long bytes) {}
        List<Growth> grown = new ArrayList<>();
        for (Map.Entry<String, Count> e : byClass.entrySet()) {
            Count before = earlier.byClass.getOrDefault(e.getKey(), new Count(0, 0));
            long bytes = e.getValue().bytes - before.bytes;
            if (bytes > 0) grown.add(new Growth(e.getKey(), e.getValue().instances - before.instances, bytes));
        }
        grown.sort(Comparator.comparingLong(Growth::bytes).reversed().thenComparing(Growth::name));
        return grown.stream().limit(top)
                .map(g -> String.format(Locale.ROOT, "%+10d B %+8d instances  %s", g.bytes(), g.instances(), g.name()))
                .toList();
    }
}
