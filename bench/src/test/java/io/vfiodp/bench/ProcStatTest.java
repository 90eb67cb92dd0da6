package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProcStatTest {

    @Test
    void cpuTimeIsUtimePlusStimeCountedFromTheLastParenthesisOfTheCommandName() {
        String stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 5120 0 0 0 37 12 0 0 20 0 25 0 123456 2000000000 19000 18446744073709551615\n";

        assertThat(ProcStat.cpuMillis(stat)).isEqualTo(490);
    }

    @Test
    void aLineThatIsNoStatLineIsRefused() {
        assertThatThrownBy(() -> ProcStat.cpuMillis("hello")).hasMessageContaining("not a /proc/PID/stat line");
        assertThatThrownBy(() -> ProcStat.cpuMillis("1 (x) S 1 2")).hasMessageContaining("too short");
    }

    @Test
    void statusFiguresAreReadByName() {
        String status = """
                Name:\tjava
                VmHWM:\t   80512 kB
                VmRSS:\t   76000 kB
                voluntary_ctxt_switches:\t150
                nonvoluntary_ctxt_switches:\t7
                """;

        assertThat(ProcStat.statusKiB(status, "VmHWM")).isEqualTo(80512);
        assertThat(ProcStat.statusKiB(status, "VmRSS")).isEqualTo(76000);
        assertThat(ProcStat.contextSwitches(status)).isEqualTo(157);
        assertThatThrownBy(() -> ProcStat.statusKiB(status, "VmSwap")).hasMessageContaining("no VmSwap line");
    }
}
