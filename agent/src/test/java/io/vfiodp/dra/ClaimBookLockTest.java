package io.vfiodp.dra;

import static io.vfiodp.dra.ClaimScript.fetched;
import static io.vfiodp.dra.ClaimScript.ref;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.handover.HandoverClaims;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * The kubelet's calls on real threads at once, on the same device: the book's lock makes each call
 * whole. The unprepare stops just before it records its change, until the prepare is either done
 * (it ran meanwhile: no lock) or waits for the lock.
 */
class ClaimBookLockTest {

    private static final String T4 = "pci-0000-1a-00-0";

    /** Edges that, once armed, hold the first save back until the other thread waits for the lock or is done. */
    private static final class Race implements ClaimBook.Edges {
        private volatile Thread other;
        private volatile boolean held;
        private volatile boolean armed;
        // what the checkpoint holds: the last save
        final AtomicReference<List<String>> recorded = new AtomicReference<>(List.of());

        @Override
        public void write(PreparedClaim claim) {
        }

        @Override
        public void remove(ClaimRef claim) {
        }

        @Override
        public void save(List<PreparedClaim> claims, Optional<String> incomplete) {
            if (armed && !held) {
                held = true;
                Thread rival = other;
                // generous: the other thread only has to start and reach the book on a busy machine
                await().atMost(Duration.ofSeconds(60)).until(() -> rival.getState() == Thread.State.BLOCKED
                        || rival.getState() == Thread.State.TERMINATED);
            }
            recorded.set(claims.stream().map(PreparedClaim::uid).toList());
        }

        @Override
        public void log(Level level, String message) {
            // the tables check the lines
        }
    }

    @Test
    void aPrepareOfADeviceBeingUnpreparedIsToldPreparedOnlyWhenTheCheckpointEndsUpHoldingIt() throws InterruptedException {
        Race race = new Race();
        ClaimBook book = new ClaimBook(new TreeMap<>(), Optional.empty(), DraNodes.DRIVER, DraNodes.NODE, ClaimScript.CHECKPOINT, race);
        book.offer(DriverView.of(ClaimScript.NODE, DriverScript.SETTINGS.numaForm()));
        assertThat(book.prepare(List.of(fetched("first", "u-1", T4))).get("u-1")).isInstanceOf(PrepareAnswer.Prepared.class);

        AtomicReference<Map<String, Optional<String>>> unprepared = new AtomicReference<>();
        AtomicReference<Map<String, PrepareAnswer>> prepared = new AtomicReference<>();
        Thread unprepare = new Thread(() -> unprepared.set(book.unprepare(List.of(ref("first", "u-1")))), "kubelet-unprepare");
        Thread prepare = new Thread(() -> prepared.set(book.prepare(List.of(fetched("second", "u-2", T4)))), "kubelet-prepare");
        race.other = prepare;
        race.armed = true;
        unprepare.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> race.held);
        prepare.start();
        unprepare.join();
        prepare.join();

        assertThat(unprepared.get()).isEqualTo(Map.of("u-1", Optional.empty()));
        // the prepare came after the unprepare had taken the device back: it gets it, and the checkpoint says so
        assertThat(prepared.get().get("u-2")).isInstanceOf(PrepareAnswer.Prepared.class);
        assertThat(race.recorded.get()).as("the checkpoint once both are answered").containsExactly("u-2");
        assertThat(book.held()).isEqualTo(new HandoverClaims.Known(Set.of("0000:1a:00.0")));
    }
}
