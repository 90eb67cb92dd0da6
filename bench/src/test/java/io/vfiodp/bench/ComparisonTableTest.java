package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class ComparisonTableTest {

    @Test
    void theMedianOfAnOddCountIsTheMiddleOneOfAnEvenCountTheMeanOfTheMiddleTwo() {
        assertThat(ComparisonTable.median(List.of(900L, 400L, 500L))).isEqualTo(500.0);
        assertThat(ComparisonTable.median(List.of(4.0, 1.0, 2.0, 3.0))).isEqualTo(2.5);
        assertThatThrownBy(() -> ComparisonTable.median(List.of())).hasMessageContaining("no values");
    }

    @Test
    void eachRowShowsBothFiguresTheRatioAndWhetherTheGoalIsMet() {
        List<String> lines = new ComparisonTable()
                .add(new ComparisonTable.Row("start", "ms", 510, OptionalDouble.of(80), OptionalDouble.of(2), true))
                .add(new ComparisonTable.Row("VmHWM", "MiB", 40.25, OptionalDouble.of(19.1), OptionalDouble.of(2.5), true))
                .add(new ComparisonTable.Row("idle CPU", "CPU-s/h", 3.5, OptionalDouble.of(0), OptionalDouble.of(5), false))
                .add(new ComparisonTable.Row("wake-ups", "/min", 120, OptionalDouble.of(0), OptionalDouble.empty(), false))
                .lines("NVIDIA");

        assertThat(lines).containsExactly(
                "| figure | ours | NVIDIA | ours ÷ NVIDIA | goal | met |",
                "|---|---|---|---|---|---|",
                "| start | 510 ms | 80 ms | 6.38× | ≤ 2× | no |",
                "| VmHWM | 40.3 MiB | 19.1 MiB | 2.11× | ≤ 2.50× | yes |",
                "| idle CPU | 3.50 CPU-s/h | 0 CPU-s/h | – | ≤ 5 CPU-s/h | yes |",
                "| wake-ups | 120 /min | 0 /min | – | – | – |");
    }

    @Test
    void withoutThePeerOnlyOurFiguresAndAbsoluteGoalsAreJudged() {
        ComparisonTable.Row start = new ComparisonTable.Row("start", "ms", 510, OptionalDouble.empty(), OptionalDouble.of(2), true);

        assertThat(start.ratio()).isEmpty();
        assertThat(start.met()).isEmpty();
        assertThat(new ComparisonTable().add(start).lines("NVIDIA").getLast()).isEqualTo("| start | 510 ms | not run | – | ≤ 2× | – |");
    }
}
