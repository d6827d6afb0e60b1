package io.gendurable;

import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link DurableOperations#inspect(long)} answers about one instance: its snapshot, and
 * what it waits for or on: its pending inbox, its children, its parent, its claim, its gate and
 * its rate limit. Each part is read in the same transaction as the snapshot.
 *
 * <p>Built by the engine with {@link #builder(InstanceSnapshot)}; parts may be added in later
 * versions, each as a new accessor, so code reading it keeps compiling.
 */
public final class InstanceDetails {
    /** The most pending signals {@link #pendingSignals()} lists (the count is exact beyond). */
    public static final int MAX_PENDING_SIGNALS = 100;
    /** The most step records {@link #history()} lists: the latest ones. */
    public static final int MAX_HISTORY = 100;

    private final InstanceSnapshot instance;
    private final List<Signal> pendingSignals;
    private final long pendingSignalCount;
    private final Map<Status, Long> children;
    private final InstanceSnapshot parent;
    private final Claim claim;
    private final Gate gate;
    private final RateLimit rateLimit;
    private final List<StepRecord> history;

    private InstanceDetails(Builder b) {
        this.history = List.copyOf(b.history);
        this.instance = b.instance;
        this.pendingSignals = List.copyOf(b.pendingSignals);
        this.pendingSignalCount = Math.max(b.pendingSignalCount, pendingSignals.size());
        EnumMap<Status, Long> all = new EnumMap<>(Status.class);
        for (Status s : Status.values()) {
            all.put(s, b.children.getOrDefault(s, 0L));
        }
        this.children = Collections.unmodifiableMap(all);
        this.parent = b.parent;
        this.claim = b.claim;
        this.gate = b.gate;
        this.rateLimit = b.rateLimit;
    }

    /**
     * @param instance the instance's snapshot
     * @return a builder of the details of that instance (used by the engine)
     */
    public static Builder builder(InstanceSnapshot instance) {
        return new Builder(instance);
    }

    /**
     * @return its step history, oldest first, at most the latest {@value #MAX_HISTORY} records;
     * empty when history is off for its FSM (or was, when these steps ran)
     */
    public List<StepRecord> history() {
        return history;
    }

    /** @return the instance as committed */
    public InstanceSnapshot instance() {
        return instance;
    }

    /** @return its last error, if any (the snapshot's {@code lastError}) */
    public Optional<String> lastError() {
        return Optional.ofNullable(instance.lastError());
    }

    /**
     * @return the signals delivered to it and not yet consumed, oldest first, at most
     *         {@value #MAX_PENDING_SIGNALS}
     */
    public List<Signal> pendingSignals() {
        return pendingSignals;
    }

    /** @return how many signals are pending, all of them (may exceed the list's size) */
    public long pendingSignalCount() {
        return pendingSignalCount;
    }

    /**
     * @return its children per status, every status present (all 0 for an instance that never fanned
     *         out; children the GC deleted are not counted)
     */
    public Map<Status, Long> children() {
        return children;
    }

    /** @return how many children it has, whatever their status */
    public long childrenTotal() {
        return children.values().stream().mapToLong(Long::longValue).sum();
    }

    /** @return its parent's snapshot, for a child whose parent still exists */
    public Optional<InstanceSnapshot> parent() {
        return Optional.ofNullable(parent);
    }

    /** @return who holds it while it is {@link Status#EXECUTING}, else empty */
    public Optional<Claim> claim() {
        return Optional.ofNullable(claim);
    }

    /** @return its concurrency key and the state of that key's gate, when it has a key */
    public Optional<Gate> gate() {
        return Optional.ofNullable(gate);
    }

    /** @return the rate limit its current step draws from and that limit's bucket, when it names one */
    public Optional<RateLimit> rateLimit() {
        return Optional.ofNullable(rateLimit);
    }

    @Override
    public String toString() {
        return "InstanceDetails[instance=" + instance + ", pendingSignalCount=" + pendingSignalCount + ", children="
                + children + ", parent=" + (parent == null ? null : parent.id()) + ", claim=" + claim + ", gate=" + gate
                + ", rateLimit=" + rateLimit + "]";
    }

    /**
     * The claim of an executing instance.
     *
     * @param worker         the worker holding it ({@code <node-id>:<queue>@<random>})
     * @param leaseExpiresAt until when the claim is trusted; past it, the reaper takes the row back
     */
    public record Claim(String worker, Instant leaseExpiresAt) {
        /**
         * @param worker the worker holding it
         * @param leaseExpiresAt until when the claim is trusted
         */
        public Claim {
            Objects.requireNonNull(worker, "worker must not be null");
        }
    }

    /**
     * An instance's concurrency key and its gate, as committed. An instance waits on it while it
     * is runnable and the key's executing instances fill the limit.
     *
     * @param concurrencyKey the key
     * @param name           the gate name: the part of the key before the first ':'
     * @param configured     whether a node declared a gate of that name ({@code gendurable.concurrency-limits.*},
     *                       recorded in {@code gen_durable_bucket_configs}); if not, the key is K = 1
     * @param limit          how many instances of the key may execute at once: the declared limit, or 1
     * @param executing      how many instances with this key are executing now (this one included)
     * @param available      the free slots of the key's counter shards, when a gate counter exists (a
     *                       gate key with no counter row reads as full; K = 1 keys have none)
     */
    public record Gate(String concurrencyKey, String name, boolean configured, int limit, long executing, Double available) {
        /**
         * @param concurrencyKey the key
         * @param name the gate name
         * @param configured whether a gate of that name is declared
         * @param limit the limit, or 1
         * @param executing the executing instances with the key
         * @param available the counter's free slots, or null
         */
        public Gate {
            Objects.requireNonNull(concurrencyKey, "concurrencyKey must not be null");
            Objects.requireNonNull(name, "name must not be null");
        }
    }

    /**
     * The rate limit of an instance's current step, and its bucket as committed.
     *
     * @param key        the rate-limit key: {@code name} or {@code name:partition}
     * @param name       the rate limit's name
     * @param weight     the tokens the step takes
     * @param configured whether a node declared a rate limit of that name (recorded in
     *                   {@code gen_durable_bucket_configs}); an undeclared one is never admitted
     * @param perSecond  the declared refill rate in tokens per second, or null when not declared
     * @param burst      the declared burst (the bucket's capacity), or null when not declared
     * @param available  the tokens left in the key's bucket at its last refill, or null when the bucket
     *                   has no row (it reads as full)
     * @param lastRefill when the bucket was last refilled, or null
     */
    public record RateLimit(String key, String name, int weight, boolean configured, Double perSecond, Double burst,
                            Double available, Instant lastRefill) {
        /**
         * @param key the rate-limit key
         * @param name its name
         * @param weight the tokens the step takes
         * @param configured whether it is declared
         * @param perSecond the declared rate, or null
         * @param burst the declared burst, or null
         * @param available the bucket's tokens, or null
         * @param lastRefill the bucket's last refill, or null
         */
        public RateLimit {
            Objects.requireNonNull(key, "key must not be null");
            Objects.requireNonNull(name, "name must not be null");
        }
    }

    /** Builds {@link InstanceDetails} (the engine's side); parts not set are empty. */
    public static final class Builder {
        private final InstanceSnapshot instance;
        private List<Signal> pendingSignals = List.of();
        private long pendingSignalCount;
        private Map<Status, Long> children = Map.of();
        private InstanceSnapshot parent;
        private Claim claim;
        private Gate gate;
        private RateLimit rateLimit;
        private List<StepRecord> history = List.of();

        private Builder(InstanceSnapshot instance) {
            this.instance = Objects.requireNonNull(instance, "instance must not be null");
        }

        /**
         * @param signals the pending signals, oldest first, at most {@value InstanceDetails#MAX_PENDING_SIGNALS}
         * @param count   how many are pending in all
         * @return this builder
         */
        public Builder pendingSignals(List<Signal> signals, long count) {
            Objects.requireNonNull(signals, "signals must not be null");
            if (signals.size() > MAX_PENDING_SIGNALS) {
                throw new IllegalArgumentException("pendingSignals must list at most " + MAX_PENDING_SIGNALS
                        + " signals, got " + signals.size());
            }
            this.pendingSignals = signals;
            this.pendingSignalCount = count;
            return this;
        }

        /**
         * @param counts the children per status
         * @return this builder
         */
        public Builder children(Map<Status, Long> counts) {
            this.children = Map.copyOf(Objects.requireNonNull(counts, "children must not be null"));
            return this;
        }

        /**
         * @param parent the parent's snapshot, or null
         * @return this builder
         */
        public Builder parent(InstanceSnapshot parent) {
            this.parent = parent;
            return this;
        }

        /**
         * @param claim the claim, or null
         * @return this builder
         */
        public Builder claim(Claim claim) {
            this.claim = claim;
            return this;
        }

        /**
         * @param gate the gate, or null
         * @return this builder
         */
        public Builder gate(Gate gate) {
            this.gate = gate;
            return this;
        }

        /**
         * @param rateLimit the rate limit, or null
         * @return this builder
         */
        public Builder rateLimit(RateLimit rateLimit) {
            this.rateLimit = rateLimit;
            return this;
        }

        /**
         * @param records the step history, oldest first, at most {@value InstanceDetails#MAX_HISTORY}
         * @return this builder
         */
        public Builder history(List<StepRecord> records) {
            Objects.requireNonNull(records, "history must not be null");
            if (records.size() > MAX_HISTORY) {
                throw new IllegalArgumentException("history must list at most " + MAX_HISTORY + " records, got " + records.size());
            }
            this.history = records;
            return this;
        }

        /** @return the details */
        public InstanceDetails build() {
            return new InstanceDetails(this);
        }
    }
}
