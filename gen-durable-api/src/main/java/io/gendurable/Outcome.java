package io.gendurable;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a step leads to. Every outcome is committed (group commit) before the next step runs.
 * Create them with the static factories: {@link #next}, {@link #retry}, {@link #await}, {@link #done},
 * {@link #stop}, {@link #scheduleChildren}.
 */
public sealed interface Outcome permits Outcome.Next, Outcome.Retry, Outcome.Await, Outcome.Done, Outcome.Stop,
        Outcome.ScheduleChildren {

    /**
     * Moves to another step with a new state.
     *
     * @param step  the next step's name; not blank
     * @param state the new state (serialized through JSON-B)
     * @return the outcome
     */
    static Next next(String step, Object state) {
        return new Next(step, state, TransitionOptions.defaults());
    }

    /**
     * Runs the same step again after a delay, with the state unchanged; {@code attempt} goes up by one.
     *
     * @param delay how long to wait; zero to 1,000 years
     * @return the outcome
     */
    static Retry retry(Duration delay) {
        return new Retry(delay, null);
    }

    /**
     * Runs the same step again after a delay with a new state; {@code attempt} goes up by one.
     *
     * @param delay how long to wait; zero to 1,000 years
     * @param state the state to retry with; null keeps the current one
     * @return the outcome
     */
    static Retry retry(Duration delay, Object state) {
        return new Retry(delay, state);
    }

    /**
     * Parks the instance until a signal with one of these names is in its inbox, then runs
     * {@code nextStep}, where {@link StepContext#awaited()} holds the matching signals.
     *
     * @param signals  the signal names to wait for; at least one, none blank
     * @param nextStep the step to run when woken
     * @param state    the state to park with
     * @return the outcome
     */
    static Await await(Set<String> signals, String nextStep, Object state) {
        return new Await(signals, nextStep, state, null);
    }

    /**
     * Like {@link #await(Set, String, Object)}, but wakes at the latest after {@code timeout},
     * with an empty {@link StepContext#awaited()} (a wake, not a failure).
     *
     * @param signals  the signal names to wait for
     * @param nextStep the step to run when woken
     * @param state    the state to park with
     * @param timeout  the longest wait; positive, at most 1,000 years
     * @return the outcome
     */
    static Await await(Set<String> signals, String nextStep, Object state, Duration timeout) {
        return new Await(signals, nextStep, state, Objects.requireNonNull(timeout, "timeout must not be null"));
    }

    /**
     * Fans out: inserts the children (in the same transaction as this outcome) and parks until
     * every child that actually landed has terminated (done or failed), then runs
     * {@code nextStep}, where {@link StepContext#children()} lists them with their results.
     * Children deduplicated away by a correlation key do not count; when none land, the instance
     * goes straight on to {@code nextStep}.
     *
     * @param children the children; any FSM, queue, priority, schedule or keys
     * @param nextStep the step to run after the join
     * @param state    the state to park with
     * @return the outcome
     */
    static ScheduleChildren scheduleChildren(List<NewInstance> children, String nextStep, Object state) {
        return new ScheduleChildren(children, nextStep, state);
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
     * @param step    the next step; not blank
     * @param state   the new state
     * @param options rate limit, weight and concurrency-key change of the move
     */
    record Next(String step, Object state, TransitionOptions options) implements Outcome {
        /**
         * Validates the step name; null options mean the defaults.
         *
         * @param step the next step; not blank
         * @param state the new state
         * @param options rate limit, weight and concurrency-key change of the move
         */
        public Next {
            Validation.requireName("step", step);
            options = options == null ? TransitionOptions.defaults() : options;
        }

        /**
         * @param name a configured rate limit ({@code gendurable.rate-limits.<name>.*}) the next step draws from
         * @return a copy whose next step is rate-limited
         */
        public Next rateLimit(String name) {
            Validation.requireName("rateLimit", name);
            if (name.indexOf(':') >= 0) {
                throw new IllegalArgumentException("a rate-limit name cannot contain ':'; use rateLimit(name, partition)");
            }
            return with(new TransitionOptions(name, options.weight(), options.keyChange(), options.concurrencyKey(),
                    options.inline()));
        }

        /**
         * @param name      a configured rate limit
         * @param partition a partition of it (e.g. a tenant): each partition has its own bucket
         * @return a copy whose next step is rate-limited in that partition
         */
        public Next rateLimit(String name, String partition) {
            rateLimit(name);
            Validation.requireName("partition", partition);
            return with(new TransitionOptions(name + ":" + partition, options.weight(), options.keyChange(),
                    options.concurrencyKey(), options.inline()));
        }

        /**
         * @param weight the tokens the next step takes from its rate limit; 1 or more
         * @return a copy with that weight
         */
        public Next weight(int weight) {
            return with(new TransitionOptions(options.rateLimit(), weight, options.keyChange(), options.concurrencyKey(),
                    options.inline()));
        }

        /**
         * @param key the concurrency key the next step runs under (admitted at its claim)
         * @return a copy that switches the key
         */
        public Next concurrencyKey(String key) {
            Validation.requireName("concurrencyKey", key);
            return with(new TransitionOptions(options.rateLimit(), options.weight(), TransitionOptions.KeyChange.SWITCH, key,
                    options.inline()));
        }

        /** @return a copy whose next step runs with no concurrency key */
        public Next releaseConcurrencyKey() {
            return with(new TransitionOptions(options.rateLimit(), options.weight(), TransitionOptions.KeyChange.RELEASE, null,
                    options.inline()));
        }

        /**
         * @param inline true: run the next step right away in the same worker, its state committed
         *               first (no requeue, no re-pick); false: requeue it even in an inline FSM
         * @return a copy that overrides {@link DurableFsm#inlineExecution()} for this move
         */
        public Next inline(boolean inline) {
            return with(new TransitionOptions(options.rateLimit(), options.weight(), options.keyChange(),
                    options.concurrencyKey(), inline));
        }

        private Next with(TransitionOptions o) {
            return new Next(step, state, o);
        }
    }

    /**
     * Redo the current step after {@code delay}.
     *
     * @param delay the delay; zero to 1,000 years
     * @param state a new state, or null to keep the current one
     */
    record Retry(Duration delay, Object state) implements Outcome {
        /**
         * Validates the delay.
         *
         * @param delay the delay; zero or more
         * @param state a new state, or null to keep the current one
         */
        public Retry {
            Objects.requireNonNull(delay, "delay must not be null");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("delay must be zero or positive, got " + delay);
            }
            Validation.maxDelay("delay", delay);
        }
    }

    /**
     * Park until a signal arrives (or the timeout passes).
     *
     * @param signals  the awaited names
     * @param nextStep the step to run when woken
     * @param state    the state to park with
     * @param timeout  the longest wait, or null for none
     */
    record Await(Set<String> signals, String nextStep, Object state, Duration timeout) implements Outcome {
        /**
         * Validates names and timeout.
         *
         * @param signals the awaited names
         * @param nextStep the step to run when woken
         * @param state the state to park with
         * @param timeout the longest wait, or null for none
         */
        public Await {
            Objects.requireNonNull(signals, "signals must not be null");
            if (signals.isEmpty()) {
                throw new IllegalArgumentException("signals must name at least one signal to await");
            }
            for (String name : signals) {
                Validation.requireName("signal name", name);
            }
            signals = Set.copyOf(signals);
            Validation.requireName("nextStep", nextStep);
            if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
                throw new IllegalArgumentException("timeout must be positive, got " + timeout);
            }
            Validation.maxDelay("timeout", timeout);
        }
    }

    /**
     * Fan out children, then join.
     *
     * @param children the children to insert
     * @param nextStep the step to run after the join
     * @param state    the state to park with
     */
    record ScheduleChildren(List<NewInstance> children, String nextStep, Object state) implements Outcome {
        /**
         * Validates the children and the step.
         *
         * @param children the children to insert
         * @param nextStep the step to run after the join
         * @param state the state to park with
         */
        public ScheduleChildren {
            Objects.requireNonNull(children, "children must not be null");
            for (int i = 0; i < children.size(); i++) {
                if (children.get(i) == null) {
                    throw new IllegalArgumentException("children[" + i + "] is null");
                }
            }
            children = List.copyOf(children);
            Validation.requireName("nextStep", nextStep);
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
        /**
         * Validates the error text.
         *
         * @param error the reason; not null
         */
        public Stop {
            Objects.requireNonNull(error, "error must not be null");
        }
    }
}
