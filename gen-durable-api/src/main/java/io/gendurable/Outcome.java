package io.gendurable;

import java.time.Duration;
import java.util.Objects;

/**
 * What a step leads to. Every outcome is committed (group commit) before the next step runs.
 * Create them with the static factories: {@link #next}, {@link #retry}, {@link #done}, {@link #stop}.
 */
public sealed interface Outcome permits Outcome.Next, Outcome.Retry, Outcome.Done, Outcome.Stop {

    /**
     * Moves to another step with a new state.
     *
     * @param step  the next step's name; not blank
     * @param state the new state (serialized through JSON-B)
     * @return the outcome
     */
    static Next next(String step, Object state) {
        return new Next(step, state);
    }

    /**
     * Runs the same step again after a delay, with the state unchanged; {@code attempt} goes up by one.
     *
     * @param delay how long to wait; zero or more
     * @return the outcome
     */
    static Retry retry(Duration delay) {
        return new Retry(delay, null);
    }

    /**
     * Runs the same step again after a delay with a new state; {@code attempt} goes up by one.
     *
     * @param delay how long to wait; zero or more
     * @param state the state to retry with; null keeps the current one
     * @return the outcome
     */
    static Retry retry(Duration delay, Object state) {
        return new Retry(delay, state);
    }

    /** @return a terminal outcome with no result */
    static Done done() {
        return new Done(null);
    }

    /**
     * @param result the result, serialized through JSON-B; null for none
     * @return a terminal outcome with a result
     */
    static Done done(Object result) {
        return new Done(result);
    }

    /**
     * @param error why the instance stops; stored in {@code last_error}
     * @return a terminal failure
     */
    static Stop stop(String error) {
        return new Stop(error);
    }

    /**
     * Move to {@code step} with {@code state}.
     *
     * @param step  the next step; not blank
     * @param state the new state
     */
    record Next(String step, Object state) implements Outcome {
        /** Validates the step name. */
        public Next {
            Validation.requireName("step", step);
        }
    }

    /**
     * Redo the current step after {@code delay}.
     *
     * @param delay the delay; zero or more
     * @param state a new state, or null to keep the current one
     */
    record Retry(Duration delay, Object state) implements Outcome {
        /** Validates the delay. */
        public Retry {
            Objects.requireNonNull(delay, "delay must not be null");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("delay must be zero or positive, got " + delay);
            }
        }
    }

    /**
     * Finish with a result.
     *
     * @param result the result, or null
     */
    record Done(Object result) implements Outcome {
    }

    /**
     * Finish as failed.
     *
     * @param error the reason; not null
     */
    record Stop(String error) implements Outcome {
        /** Validates the error text. */
        public Stop {
            Objects.requireNonNull(error, "error must not be null");
        }
    }
}
