package io.vfiodp.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The loop around a pure step, with a step that only records: its state is every batch of events
 * it took, in order; an event {@code "do:x,y"} asks for actions {@code x} and {@code y}. An action
 * {@code "echo:e"} gives the outcome {@code e} at once, {@code "wake:n"} makes the step ask for a sweep at
 * {@code n} nanoseconds on the test's ticker, {@code "fail"} throws.
 */
class StepLoopTest {

    // generous: the machine that runs the suite may be busy; nothing here waits for long when it works
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final AtomicLong ticker = new AtomicLong();
    private final AtomicInteger sweeps = new AtomicInteger();
    private final Queue<String> executed = new ConcurrentLinkedQueue<>();
    private final List<Long> fed = new CopyOnWriteArrayList<>();
    private final List<Thread> stepThreads = new CopyOnWriteArrayList<>();
    private StepLoop<List<List<String>>, String, String> loop;

    private static final Step<List<List<String>>, String, String> RECORDING = (state, events, now) -> {
        if (events.contains("explode")) throw new IllegalStateException("the step failed");
        List<List<String>> next = new ArrayList<>(state);
        next.add(List.copyOf(events));
        List<String> actions = new ArrayList<>();
        for (String e : events) {
            if (e.startsWith("do:")) actions.addAll(List.of(e.substring(3).split(",")));
        }
        Optional<Long> wake = actions.stream().filter(a -> a.startsWith("wake:")).map(a -> Long.parseLong(a.substring(5))).findFirst();
        return new Step.Result<>(List.copyOf(next), actions, wake);
    };

    private StepLoop<List<List<String>>, String, String> start() {
        loop = new StepLoop<>("step-loop-test", LoggerFactory.getLogger(StepLoopTest.class), List.of(), (state, events, now) -> {
            stepThreads.add(Thread.currentThread());
            return RECORDING.next(state, events, now);
        }, ticker::get, () -> "sweep" + sweeps.incrementAndGet(), this::execute, fed::add);
        return loop;
    }

    private void execute(String action, Consumer<String> outcome) {
        executed.add(action);
        if (action.startsWith("echo:")) outcome.accept(action.substring(5));
        if (action.equals("fail")) throw new IllegalStateException("the action failed");
    }

    @AfterEach
    void close() {
        if (loop != null) loop.close("close", () -> { }, WAIT);
    }

    @Test
    void eventsAreTakenInOrderEachWithASweepAndOutcomesBeforeWhatWasQueuedAfter() {
        start();

        loop.offer("a");
        loop.offer("do:echo:outcome");
        loop.offer("b");

        await().atMost(WAIT).until(() -> loop.state().size() == 4);
        assertThat(loop.state()).containsExactly(List.of("a", "sweep1"), List.of("do:echo:outcome", "sweep2"), List.of("outcome"),
                List.of("b", "sweep3"));
        assertThat(fed).as("one report per feed").hasSize(3);
    }

    @Test
    void actionsRunInOrderAndOneThatFailsSkipsNoneOfTheRest() {
        start();

        loop.offer("do:first,fail,last");

        await().atMost(WAIT).until(() -> executed.size() == 3);
        assertThat(executed).containsExactly("first", "fail", "last");
    }

    @Test
    void aStepThatFailsKeepsTheStateAndTheLoopGoesOn() {
        start();

        loop.offer("a");
        loop.offer("explode");
        loop.offer("b");

        await().atMost(WAIT).until(() -> loop.state().size() == 2);
        assertThat(loop.state()).containsExactly(List.of("a", "sweep1"), List.of("b", "sweep3"));
    }

    @Test
    void anOutcomeFromElsewhereIsFedWithoutASweep() {
        start();

        loop.offerOutcome("published");

        await().atMost(WAIT).until(() -> loop.state().size() == 1);
        assertThat(loop.state()).containsExactly(List.of("published"));
        assertThat(sweeps).hasValue(0);
    }

    @Test
    void aWakeUpSweepsAtTheTimeAskedOnTheTicker() {
        long origin = Long.MAX_VALUE / 2;
        ticker.set(origin);
        start();

        // due 10 ns later on the ticker (centuries after its origin): the sweep runs at once
        loop.offer("do:wake:" + (origin + 10));

        await().atMost(WAIT).until(() -> loop.state().size() == 2);
        assertThat(loop.state()).containsExactly(List.of("do:wake:" + (origin + 10), "sweep1"), List.of("sweep2"));
    }

    @Test
    void aSweepAskedForRunsBeforeWhatIsQueuedAfterIt() {
        start();

        for (int i = 0; i < 20; i++) loop.requestSweep();
        loop.offer("marker");

        await().atMost(WAIT).until(() -> loop.state().stream().anyMatch(events -> events.contains("marker")));
        assertThat(loop.state().getFirst()).containsExactly("sweep1");
    }

    @Test
    void closeRunsTheClosingStepThenItsLastWordsAndEndsTheThread() throws Exception {
        start();
        loop.offer("a");
        await().atMost(WAIT).until(() -> loop.state().size() == 1);
        Thread thread = stepThreads.getFirst();
        CompletableFuture<List<List<String>>> stateAtLastWords = new CompletableFuture<>();

        loop.close("do:stop", () -> stateAtLastWords.complete(loop.state()), WAIT);

        assertThat(stateAtLastWords.get(0, TimeUnit.SECONDS)).containsExactly(List.of("a", "sweep1"), List.of("do:stop"));
        assertThat(executed).containsExactly("stop");
        assertThat(fed).as("the closing step is not reported").hasSize(1);
        assertThat(thread.getName()).isEqualTo("step-loop-test");
        assertThat(thread.isAlive()).as("the loop's thread, once closed").isFalse();
        assertThat(loop.offer("late")).isFalse();
        assertThat(loop.submit(() -> { })).isFalse();
    }

    @Test
    void closeIsIdempotent() {
        start();
        AtomicInteger lastWords = new AtomicInteger();

        loop.close("close", lastWords::incrementAndGet, WAIT);
        loop.close("close", lastWords::incrementAndGet, WAIT);

        assertThat(lastWords).hasValue(1);
        assertThat(loop.state()).containsExactly(List.of("close"));
    }

    @Test
    void theLastWordsAreSaidEvenWhenTheClosingStepFails() {
        start();
        AtomicInteger lastWords = new AtomicInteger();

        loop.close("explode", lastWords::incrementAndGet, WAIT);

        assertThat(lastWords).hasValue(1);
        assertThat(stepThreads).allSatisfy(t -> assertThat(t.isAlive()).isFalse());
    }
}
