package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.fixtures.SysfsFixtures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The soak machinery end to end, shortened to 20 s with a sample a second: the plugin runs as its
 * own JVM from the test class path (the jar is built after the tests), under the full load.
 */
class SoakBenchTest {

    private static final Pattern ROW = Pattern.compile(
            "^ +(\\d+):(\\d\\d) +(\\d+\\.\\d) +(\\d+\\.\\d) +(\\d+\\.\\d) +(\\d+) +(\\d+) +(\\d+) +(\\d+) +(\\d+)$");

    @Test
    void aShortSoakPrintsOneRowPerSampleCountsItsLoadAndJudgesEveryMetric() throws Exception {
        SoakSettings settings = new SoakSettings(Duration.ofSeconds(20), Duration.ofSeconds(1), Duration.ofSeconds(6), Duration.ofSeconds(3),
                Duration.ofSeconds(1), 2, Duration.ofMillis(20), SysfsFixtures.committedRoot().resolve("t4-numa"),
                Path.of(System.getProperty("java.home"), "bin", "java"), List.of("-cp", System.getProperty("java.class.path"), "io.vfiodp.cli.Main"),
                List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k", "-Xmx32m"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        int exit = new SoakBench(settings, new PrintStream(bytes, true, StandardCharsets.UTF_8)).run();

        String output = bytes.toString(StandardCharsets.UTF_8);
        System.out.println(output);
        List<String> lines = output.lines().toList();
        int header = lines.indexOf(SoakBench.HEADER);
        assertThat(header).as("table header").isPositive();
        List<Matcher> rows = lines.stream().map(ROW::matcher).filter(Matcher::matches).toList();
        assertThat(rows).hasSize(20);
        int warmupOver = lines.indexOf("---- warm-up over: the rows below are judged ----");
        assertThat(lines.subList(header + 1, warmupOver)).allSatisfy(l -> assertThat(seconds(ROW.matcher(l))).isLessThan(6));
        assertThat(seconds(ROW.matcher(lines.get(warmupOver + 1)))).isGreaterThanOrEqualTo(6);
        Matcher last = rows.getLast();
        assertThat(Long.parseLong(last.group(8))).as("allocations").isPositive();
        // at most one restart per 3 s and one flap per second of the 20; fewer when the machine is slow
        assertThat(Long.parseLong(last.group(9))).as("kubelet restarts").isBetween(1L, 6L);
        assertThat(Long.parseLong(last.group(10))).as("flaps").isBetween(1L, 20L);
        assertThat(lines).contains("unexpected errors: 0");
        assertThat(lines).anyMatch(l -> l.matches("SIGTERM -> exit 0 in \\d+ ms"));
        assertThat(lines).anyMatch(l -> l.startsWith("final ListAndWatch of nvidia.com/TU104GL_TESLA_T4 equals the first: "));
        for (SoakMetric m : SoakMetric.values()) {
            assertThat(lines).as(m.label()).filteredOn(l -> l.startsWith("ok:   " + m.label() + " from ") || l.startsWith("FAIL: " + m.label() + " trends upward: "))
                    .hasSize(1);
        }
        String verdict = lines.getLast();
        assertThat(verdict).matches("(PASS|FAIL): .+");
        assertThat(exit).isEqualTo(verdict.startsWith("PASS") ? 0 : 1);
    }

    private static long seconds(Matcher row) {
        assertThat(row.matches()).isTrue();
        return Long.parseLong(row.group(1)) * 60 + Long.parseLong(row.group(2));
    }
}
