package io.vfiodp.kernel.guest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PaceTest {

    @Test
    void aGuestThatBootsAsFastAsOnAQuietMachineWaitsTheFloor() {
        Pace quiet = Pace.ofBoot(Duration.ofSeconds(3));

        assertThat(quiet.factor()).isEqualTo(1);
        assertThat(quiet.scale(Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(180));
    }

    @Test
    void aGuestThatBootsSlowerWaitsThatMuchLonger() {
        Pace busy = Pace.ofBoot(Pace.QUIET_BOOT.multipliedBy(6));

        assertThat(busy.factor()).isEqualTo(6);
        assertThat(busy.scale(Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(360));
        assertThat(busy.jvmOption()).isEqualTo("-Dvfiodp.pace=6.00");
    }

    @Test
    void noWaitGrowsPastTheMost() {
        assertThat(Pace.ofBoot(Duration.ofMinutes(3)).scale(Duration.ofMinutes(4))).isEqualTo(Pace.MOST);
    }

    @Test
    void theGuestSideReadsThePaceTheHostHandedOver() {
        String before = System.getProperty(Pace.PROPERTY);
        try {
            System.setProperty(Pace.PROPERTY, "2.50");
            assertThat(Pace.fromProperty()).isEqualTo(new Pace(2.5));
            System.clearProperty(Pace.PROPERTY);
            assertThat(Pace.fromProperty()).isEqualTo(new Pace(1));
        } finally {
            if (before == null) System.clearProperty(Pace.PROPERTY);
            else System.setProperty(Pace.PROPERTY, before);
        }
    }

    @Test
    void aPaceBelowOneIsRefused() {
        assertThatThrownBy(() -> new Pace(0.5)).isInstanceOf(IllegalArgumentException.class);
    }
}
