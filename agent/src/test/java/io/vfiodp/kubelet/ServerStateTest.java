package io.vfiodp.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.kubelet.ServerState.Down;
import io.vfiodp.kubelet.ServerState.Starting;
import io.vfiodp.kubelet.ServerState.Up;
import io.vfiodp.triggers.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A served socket's lifecycle, as both sides' steps use it: the transitions and the restart backoff. */
class ServerStateTest {

    private static final Backoff BACKOFF = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(1));
    private static final long MS = Duration.ofMillis(1).toNanos();

    @Test
    void aNewServerIsDueAtOnceWithNothingFailed() {
        assertThat(ServerState.dueAt(42)).isEqualTo(new Down(42, 0, null));
        assertThat(ServerState.dueAt(42).dueBy(42)).isTrue();
        assertThat(ServerState.dueAt(42).dueBy(41)).isFalse();
    }

    @Test
    void aStartThatSucceedsServesAsItsGenerationAndForgetsTheFailures() {
        Starting starting = new Down(0, 3, "address in use").start(7);

        assertThat(starting).isEqualTo(new Starting(7, 3, "address in use"));
        assertThat(starting.started()).isEqualTo(new Up(7));
    }

    @Test
    void failedStartsWaitOutTheBackoffDoublingUpToItsCap() {
        long now = 1_000 * MS;
        Starting first = ServerState.dueAt(0).start(1);

        Down afterOne = first.failed("denied", BACKOFF, now);
        Down afterTwo = afterOne.start(2).failed("denied", BACKOFF, now);
        Down afterThree = afterTwo.start(3).failed("denied", BACKOFF, now);
        Down afterFour = afterThree.start(4).failed("denied", BACKOFF, now);

        assertThat(afterOne).isEqualTo(new Down(now + 200 * MS, 1, "denied"));
        assertThat(afterTwo).isEqualTo(new Down(now + 400 * MS, 2, "denied"));
        assertThat(afterThree).isEqualTo(new Down(now + 800 * MS, 3, "denied"));
        assertThat(afterFour).as("capped").isEqualTo(new Down(now + 1000 * MS, 4, "denied"));
        assertThat(afterOne.dueBy(now + 199 * MS)).isFalse();
        assertThat(afterOne.dueBy(now + 200 * MS)).isTrue();
    }

    @Test
    void aProblemIsNewWhenItDiffersFromTheLastStartsOrIsTheFirst() {
        Starting firstTry = ServerState.dueAt(0).start(1);
        Starting again = firstTry.failed("denied", BACKOFF, 0).start(2);

        assertThat(firstTry.isNew("denied")).isTrue();
        assertThat(again.isNew("denied")).isFalse();
        assertThat(again.isNew("address in use")).isTrue();
    }

    @Test
    void aRetryAtOnceKeepsTheFailuresSoThatTheSameProblemIsNotLoggedAgain() {
        Down waiting = new Down(500 * MS, 2, "denied");

        Down now = waiting.retryAt(10 * MS);

        assertThat(now).isEqualTo(new Down(10 * MS, 2, "denied"));
        assertThat(now.dueBy(10 * MS)).isTrue();
        assertThat(now.start(9).isNew("denied")).isFalse();
    }

    @Test
    void dueTimesAreComparedByDifferenceSoThatTheTickerMayWrap() {
        long nearTheEnd = Long.MAX_VALUE - 100 * MS;
        Down down = ServerState.dueAt(nearTheEnd).start(1).failed("denied", BACKOFF, nearTheEnd);

        assertThat(down.nextStart()).as("wrapped").isNegative();
        assertThat(down.dueBy(nearTheEnd + 199 * MS)).isFalse();
        assertThat(down.dueBy(nearTheEnd + 200 * MS)).isTrue();
    }
}
