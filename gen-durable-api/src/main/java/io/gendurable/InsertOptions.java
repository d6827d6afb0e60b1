package io.gendurable;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * How to insert an instance. Every field is optional: null (or 0 for {@code priority}, 1 for
 * {@code weight}) means the FSM's or the engine's default.
 *
 * @param queue            the queue; default {@link DurableFsm#queue()}
 * @param priority         lower runs first; 0 or more; default 0
 * @param scheduledAt      not picked before this instant (years 1 to 9999); default now
 * @param step             the first step; default {@link DurableFsm#initialStep()}
 * @param correlationKey   a business key that addresses the instance and deduplicates inserts
 * @param correlationScope the statuses in which the key is held; default the non-terminal ones; when
 *                         given, it holds every non-terminal status and may add DONE, FAILED or CANCELLED
 * @param concurrencyKey   at most K instances with this key execute at once, cluster-wide (K = 1 unless the
 *                         key's name, the part before ':', is a configured gate)
 * @param rateLimit        the rate-limit key of the first step: {@code name} or {@code name:partition}
 * @param weight           the tokens the first step takes from its rate limit; 1 or more
 * @param stepTimeout      the longest each step of this instance may run ({@link StepTimeoutException}
 *                         past it), overriding the FSM's and the step's; zero for none; null (the
 *                         default) for {@link Fsm#stepTimeout(String)}, {@link DurableFsm#stepTimeout()}
 *                         or {@code gendurable.step-timeout}
 * @param debounce         run once after a burst ({@link Debounce}): while an instance of the FSM with
 *                         this debounce key waits for its first start, the insert moves that start
 *                         instead of inserting; not with {@code scheduledAt} (the window sets the start)
 *                         nor {@code correlationKey}
 */
public record InsertOptions(String queue, int priority, Instant scheduledAt, String step,
                            String correlationKey, Set<Status> correlationScope, String concurrencyKey,
                            String rateLimit, int weight, Duration stepTimeout, Debounce debounce) {

    /** The statuses that hold a correlation key by default: every non-terminal one. */
    public static final Set<Status> LIVE_STATUSES = Collections.unmodifiableSet(EnumSet.of(
            Status.RUNNABLE, Status.EXECUTING, Status.AWAITING_SIGNAL, Status.AWAITING_CHILDREN));

    private static final InsertOptions DEFAULTS = new InsertOptions(null, 0, null, null, null, null, null, null, 1, null, null);

    /**
     * Validates every field.
     *
     * @param queue the queue; default {@link DurableFsm#queue()}
     * @param priority lower runs first; 0 or more; default 0
     * @param scheduledAt not picked before this instant; default now
     * @param step the first step; default {@link DurableFsm#initialStep()}
     * @param correlationKey a business key that addresses the instance and deduplicates inserts
     * @param correlationScope the statuses in which the key is held; default the non-terminal ones
     * @param concurrencyKey at most K instances with this key execute at once, cluster-wide
     *                       (K = 1 unless the key's name, the part before ':', is a configured gate)
     * @param rateLimit the rate-limit key of the first step: {@code name} or {@code name:partition}
     * @param weight the tokens the first step takes from its rate limit; 1 or more
     * @param stepTimeout the longest each step may run; zero for none; null for the FSM's default
     * @param debounce run once after a burst; null for none; not with {@code scheduledAt} nor {@code correlationKey}
     */
    public InsertOptions {
        Validation.optionalQueue(queue);
        if (priority < 0) {
            throw new IllegalArgumentException("priority must be 0 or more (lower runs first), got " + priority);
        }
        if (scheduledAt != null
                && (scheduledAt.isAfter(Validation.MAX_INSTANT) || scheduledAt.isBefore(Validation.MIN_INSTANT))) {
            throw new IllegalArgumentException("scheduledAt must be within the years 1 to 9999, got " + scheduledAt);
        }
        Validation.optionalName("step", step);
        Validation.optionalName("correlationKey", correlationKey);
        if (correlationScope != null) {
            if (correlationScope.isEmpty()) {
                throw new IllegalArgumentException("correlationScope must name at least one status; accepted: "
                        + java.util.Arrays.toString(Status.values()) + " (default: the non-terminal ones)");
            }
            correlationScope = Collections.unmodifiableSet(EnumSet.copyOf(correlationScope));
            if (!correlationScope.containsAll(LIVE_STATUSES)) {
                // A key released while the instance still lives (e.g. when it is claimed) lets a
                // second instance take it; the first could then never move back into the scope.
                throw new IllegalArgumentException("correlationScope must hold every live status " + LIVE_STATUSES
                        + " (DONE, FAILED and CANCELLED may be added), got " + correlationScope);
            }
        }
        Validation.optionalName("concurrencyKey", concurrencyKey);
        Validation.optionalName("rateLimit", rateLimit);
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be 1 or more, got " + weight);
        }
        Validation.stepTimeout("stepTimeout", stepTimeout);
        if (debounce != null && scheduledAt != null) {
            throw new IllegalArgumentException("debounce and scheduledAt (or scheduleIn) cannot be combined: a debounced"
                    + " instance starts its window after the latest insert of its key; widen the window instead");
        }
        if (debounce != null && correlationKey != null) {
            throw new IllegalArgumentException("debounce and correlationKey cannot be combined: a debounced insert"
                    + " answers with the waiting instance of its debounce key; address it by the id it returns");
        }
    }

    /**
     * Options without a debounce: the fields as the canonical constructor's.
     *
     * @param queue the queue; default {@link DurableFsm#queue()}
     * @param priority lower runs first; 0 or more; default 0
     * @param scheduledAt not picked before this instant; default now
     * @param step the first step; default {@link DurableFsm#initialStep()}
     * @param correlationKey a business key that addresses the instance and deduplicates inserts
     * @param correlationScope the statuses in which the key is held; default the non-terminal ones
     * @param concurrencyKey at most K instances with this key execute at once, cluster-wide
     * @param rateLimit the rate-limit key of the first step: {@code name} or {@code name:partition}
     * @param weight the tokens the first step takes from its rate limit; 1 or more
     * @param stepTimeout the longest each step may run; zero for none; null for the FSM's default
     */
    public InsertOptions(String queue, int priority, Instant scheduledAt, String step, String correlationKey,
                         Set<Status> correlationScope, String concurrencyKey, String rateLimit, int weight,
                         Duration stepTimeout) {
        this(queue, priority, scheduledAt, step, correlationKey, correlationScope, concurrencyKey, rateLimit, weight,
                stepTimeout, null);
    }

    /**
     * Options without a step timeout of their own: the fields as the canonical constructor's.
     *
     * @param queue the queue; default {@link DurableFsm#queue()}
     * @param priority lower runs first; 0 or more; default 0
     * @param scheduledAt not picked before this instant; default now
     * @param step the first step; default {@link DurableFsm#initialStep()}
     * @param correlationKey a business key that addresses the instance and deduplicates inserts
     * @param correlationScope the statuses in which the key is held; default the non-terminal ones
     * @param concurrencyKey at most K instances with this key execute at once, cluster-wide
     * @param rateLimit the rate-limit key of the first step: {@code name} or {@code name:partition}
     * @param weight the tokens the first step takes from its rate limit; 1 or more
     */
    public InsertOptions(String queue, int priority, Instant scheduledAt, String step, String correlationKey,
                         Set<Status> correlationScope, String concurrencyKey, String rateLimit, int weight) {
        this(queue, priority, scheduledAt, step, correlationKey, correlationScope, concurrencyKey, rateLimit, weight,
                null, null);
    }

    /** @return options with every default */
    public static InsertOptions defaults() {
        return DEFAULTS;
    }

    /** @return a builder starting from the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the correlation scope, or {@link #LIVE_STATUSES} when none was given */
    public Set<Status> effectiveCorrelationScope() {
        return correlationScope == null ? LIVE_STATUSES : correlationScope;
    }

    /** A builder for {@link InsertOptions}; validation happens in {@link #build()}. */
    public static final class Builder {
        private String queue;
        private int priority;
        private Instant scheduledAt;
        private Duration scheduleIn;
        private String step;
        private String correlationKey;
        private Set<Status> correlationScope;
        private String concurrencyKey;
        private String rateLimit;
        private int weight = 1;
        private Duration stepTimeout;
        private Debounce debounce;

        private Builder() {
        }

        /**
         * @param queue the queue
         * @return this builder
         */
        public Builder queue(String queue) {
            this.queue = queue;
            return this;
        }

        /**
         * @param priority 0 or more, lower runs first
         * @return this builder
         */
        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /**
         * @param at not picked before this instant
         * @return this builder
         */
        public Builder scheduleAt(Instant at) {
            this.scheduledAt = at;
            this.scheduleIn = null;
            return this;
        }

        /**
         * @param delay not picked before now plus this delay; "now" is taken when {@link #build()}
         *              runs, so build options right before the insert rather than reusing them
         * @return this builder
         */
        public Builder scheduleIn(Duration delay) {
            Objects.requireNonNull(delay, "scheduleIn must not be null");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("scheduleIn must be zero or positive, got " + delay);
            }
            Validation.maxDelay("scheduleIn", delay);
            this.scheduleIn = delay;
            this.scheduledAt = null;
            return this;
        }

        /**
         * @param step the first step
         * @return this builder
         */
        public Builder step(String step) {
            this.step = step;
            return this;
        }

        /**
         * @param correlationKey the business key
         * @return this builder
         */
        public Builder correlationKey(String correlationKey) {
            this.correlationKey = correlationKey;
            return this;
        }

        /**
         * @param statuses the statuses in which the key is held
         * @return this builder
         */
        public Builder correlationScope(Status... statuses) {
            this.correlationScope = statuses.length == 0 ? EnumSet.noneOf(Status.class) : EnumSet.of(statuses[0], statuses);
            return this;
        }

        /**
         * @param key the concurrency key (K = 1 unless its name is a configured gate)
         * @return this builder
         */
        public Builder concurrencyKey(String key) {
            this.concurrencyKey = key;
            return this;
        }

        /**
         * @param name a configured rate limit the first step draws from
         * @return this builder
         */
        public Builder rateLimit(String name) {
            if (name != null && name.indexOf(':') >= 0) {
                throw new IllegalArgumentException("a rate-limit name cannot contain ':'; use rateLimit(name, partition)");
            }
            this.rateLimit = name;
            return this;
        }

        /**
         * @param name      a configured rate limit
         * @param partition a partition (e.g. a tenant): each has its own bucket
         * @return this builder
         */
        public Builder rateLimit(String name, String partition) {
            rateLimit(name);
            Validation.requireName("rateLimit", name);
            Validation.requireName("partition", partition);
            this.rateLimit = name + ":" + partition;
            return this;
        }

        /**
         * @param weight tokens the first step takes from its rate limit; 1 or more
         * @return this builder
         */
        public Builder weight(int weight) {
            this.weight = weight;
            return this;
        }

        /**
         * @param timeout the longest each step of this instance may run before it is interrupted and
         *                ends as a {@link StepTimeoutException}, whatever its FSM declares; zero: no
         *                timeout; null: the FSM's (validated by {@link #build()}: zero, or 1 ms to 1,000 years)
         * @return this builder
         */
        public Builder stepTimeout(Duration timeout) {
            this.stepTimeout = timeout;
            return this;
        }

        /**
         * Run once after a burst, the last write winning: while an instance of this FSM with this key
         * waits for its first start, this insert moves its start to {@code window} from now and gives it
         * this insert's state, and answers its id with {@link Inserted#debounced()}.
         *
         * @param key    the debounce key, per FSM (not null or blank)
         * @param window how long to wait after the latest insert of the key: 1 ms to 30 days
         * @return this builder
         * @throws IllegalArgumentException naming the field and the accepted values
         */
        public Builder debounce(String key, Duration window) {
            return debounce(key, window, Debounce.State.LAST);
        }

        /**
         * Run once after a burst ({@link Debounce}).
         *
         * @param key    the debounce key, per FSM (not null or blank)
         * @param window how long to wait after the latest insert of the key: 1 ms to 30 days
         * @param state  {@link Debounce.State#LAST}: the latest insert's state replaces the waiting one's;
         *               {@link Debounce.State#FIRST}: the waiting instance keeps its own
         * @return this builder
         * @throws IllegalArgumentException naming the field and the accepted values
         */
        public Builder debounce(String key, Duration window, Debounce.State state) {
            this.debounce = new Debounce(key, window, state);
            return this;
        }

        /** @return the options */
        public InsertOptions build() {
            Instant at = scheduleIn != null ? Instant.now().plus(scheduleIn) : scheduledAt;
            return new InsertOptions(queue, priority, at, step, correlationKey, correlationScope, concurrencyKey,
                    rateLimit, weight, stepTimeout, debounce);
        }
    }
}
