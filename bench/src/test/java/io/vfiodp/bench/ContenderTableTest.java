package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.bench.RunSamples.Figure;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContenderTableTest {

    private static RunSamples samples(double registered, double hwm, double uevent) {
        RunSamples s = new RunSamples();
        s.add(Figure.REGISTERED, registered);
        s.add(Figure.HWM, hwm);
        s.add(EventBenches.PREFIX + "driver change -> GPU Unhealthy", uevent);
        return s;
    }

    @Test
    void aMechanismBuysTheUserSeenFiguresThatGetTenPercentWorseWithoutIt() {
        ContenderTable.Column on = new ContenderTable.Column("perf", samples(200, 70, 30));
        ContenderTable.Column off = new ContenderTable.Column("no-x", samples(220, 90, 32.9));

        assertThat(ContenderTable.bought(on, off)).containsExactly(Figure.REGISTERED.key());
    }

    @Test
    void theOnOffTableShowsBothMediansTheChangeAndWhetherItCounts() {
        ContenderTable.Column on = new ContenderTable.Column("perf", samples(200, 70, 30));
        ContenderTable.Column off = new ContenderTable.Column("no-x", samples(180, 90, 33));

        assertThat(ContenderTable.onOff(on, off)).containsExactly(
                "| figure | on (perf) | off (no-x) | off − on | buys ≥ 10% |",
                "|---|---|---|---|---|",
                "| start → all resources registered, t4-numa | 200 ms | 180 ms | -10.0% | no |",
                "| VmHWM after registration + Allocates | 70 MiB | 90 MiB | +28.6% | (not a user's figure) |",
                "| event: driver change -> GPU Unhealthy | 30 ms | 33 ms | +10.0% | yes |");
    }

    @Test
    void everyContenderIsAColumnOfMediansAndAMissingFigureADash() {
        RunSamples floor = new RunSamples();
        floor.add(Figure.REGISTERED, 100);
        floor.add(Figure.REGISTERED, 120);
        floor.add(Figure.REGISTERED, 300);

        assertThat(ContenderTable.byContender(List.of(new ContenderTable.Column("perf", samples(200, 70.25, 30)),
                new ContenderTable.Column("floor", floor)))).containsExactly(
                "| figure | perf | floor |",
                "|---|---|---|",
                "| start → all resources registered, t4-numa (ms) | 200 | 120 |",
                "| VmHWM after registration + Allocates (MiB) | 70.3 | – |",
                "| event: driver change -> GPU Unhealthy (ms) | 30 | – |");
    }
}
