package io.vfiodp.kubelet;

import java.util.List;
import java.util.Optional;

/**
 * A pure step: {@code (state, events, now) → (state', actions)}, without threads, sockets or
 * clocks. Each side's decision is one (the device plugins' {@code ReconcileStep}, the DRA driver's
 * {@code DriverStep}); {@link StepLoop} runs it.
 *
 * @param <S> the state, a frozen value
 * @param <E> what the step reacts to: news from outside and the outcomes of its own actions
 * @param <A> what the step asks its thread to do
 */
@FunctionalInterface
public interface Step<S, E, A> {

    /** A step's outcome: the next state, what to do, in order, and when to sweep next on the step's clock (replacing any earlier wake-up). */
    record Result<S, A>(S state, List<A> actions, Optional<Long> wakeAt) {
        public Result {
            actions = List.copyOf(actions);
        }
    }

    /** Takes in {@code events} that happened together, in order, at {@code now} (a {@code Ticker}'s nanoseconds). */
    Result<S, A> next(S state, List<E> events, long now);
}
