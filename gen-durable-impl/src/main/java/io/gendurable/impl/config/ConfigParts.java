package io.gendurable.impl.config;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.gendurable.impl.config.ConfigKeys.AWAIT_TICK;
import static io.gendurable.impl.config.ConfigKeys.DRAIN_TIMEOUT;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_MAX_BATCH;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_MAX_DELAY;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_PARALLELISM;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_QUEUES;
import static io.gendurable.impl.config.ConfigKeys.GAUGES_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.GC_BATCH;
import static io.gendurable.impl.config.ConfigKeys.GC_FAILED_RETENTION;
import static io.gendurable.impl.config.ConfigKeys.GC_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.GC_RETENTION;
import static io.gendurable.impl.config.ConfigKeys.HEALTH_STALL_GRACE;
import static io.gendurable.impl.config.ConfigKeys.HEALTH_TIMEOUT;
import static io.gendurable.impl.config.ConfigKeys.HEARTBEAT_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.HISTORY_RETENTION;
import static io.gendurable.impl.config.ConfigKeys.LEASE_TTL;
import static io.gendurable.impl.config.ConfigKeys.MAX_POLL_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.MAX_VALUE_BYTES;
import static io.gendurable.impl.config.ConfigKeys.MIN_DEMAND;
import static io.gendurable.impl.config.ConfigKeys.NODES_BEACON_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.NODES_RETENTION;
import static io.gendurable.impl.config.ConfigKeys.NODE_ID;
import static io.gendurable.impl.config.ConfigKeys.POKE;
import static io.gendurable.impl.config.ConfigKeys.POKE_PROBE_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.POKE_WINDOW;
import static io.gendurable.impl.config.ConfigKeys.POLL_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.PREFETCH;
import static io.gendurable.impl.config.ConfigKeys.QUEUES;
import static io.gendurable.impl.config.ConfigKeys.REAPER_BATCH;
import static io.gendurable.impl.config.ConfigKeys.REAPER_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.REDIS_TIMEOUT;
import static io.gendurable.impl.config.ConfigKeys.REDIS_URL;
import static io.gendurable.impl.config.ConfigKeys.SCHEDULES_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.SCHEDULES_MISFIRE_THRESHOLD;
import static io.gendurable.impl.config.ConfigKeys.SCHEMA;
import static io.gendurable.impl.config.ConfigKeys.STEP_TIMEOUT;
import static io.gendurable.impl.config.ConfigKeys.STEP_TIMEOUT_GRACE;

/**
 * The parts of an {@link EngineConfig}: one small record per part of the engine, each checking its
 * own keys (as declared in {@link ConfigKeys}) and the rules between them. {@link EngineConfig}
 * implements this interface so the parts keep their names ({@code EngineConfig.LeaseConfig}) while
 * the whole, its cross-part rules and its builder stay in a file of their own.
 */
public interface ConfigParts {

    /**
     * Step timeouts. @param timeout the timeout of steps whose insert, FSM and step set none; zero: none
     * @param timeoutGrace how long a timed-out step's thread has to return before its claim is no longer heartbeated
     */
    public record StepsConfig(Duration timeout, Duration timeoutGrace) {
        /** Validates both keys. */
        public StepsConfig {
            STEP_TIMEOUT.check(timeout);
            STEP_TIMEOUT_GRACE.check(timeoutGrace);
        }
    }

    /**
     * The Redis of {@code limiter=redis} and {@code poke=redis}.
     * @param url     {@code redis://[user:password@]host[:port][/database]}
     * @param timeout how long one command may take
     */
    public record RedisConfig(String url, Duration timeout) {
        /** Validates both keys. */
        public RedisConfig {
            REDIS_URL.check(url);
            REDIS_TIMEOUT.check(timeout);
        }
    }

    /**
     * This node. @param id its identity, part of every worker id (start-up reclaim)
     * @param queues queue name → concurrency (steps in flight at once on this node), in order
     */
    public record NodeConfig(String id, Map<String, Integer> queues) {
        /** Validates both keys. */
        public NodeConfig {
            NODE_ID.check(id);
            queues = Collections.unmodifiableMap(new LinkedHashMap<>(QUEUES.check(queues)));
        }
    }

    /**
     * Leases. @param ttl how long a claim is trusted without a heartbeat
     * @param heartbeatInterval how often claims are extended; shorter than {@code ttl}
     */
    public record LeaseConfig(Duration ttl, Duration heartbeatInterval) {
        /** Validates both keys, and the heartbeat against the lease. */
        public LeaseConfig {
            LEASE_TTL.check(ttl);
            HEARTBEAT_INTERVAL.check(heartbeatInterval);
            if (heartbeatInterval.compareTo(ttl) >= 0) {
                throw HEARTBEAT_INTERVAL.reject("", heartbeatInterval,
                        "a duration shorter than " + LEASE_TTL.key() + " (" + ttl + "); keep it under a third of it");
            }
        }
    }

    /**
     * Polling and claiming. @param interval the base idle poll @param maxInterval the idle backoff ceiling
     * @param prefetch rows each queue buffers beyond its running slots; {@link ConfigKeys#AUTO}: its concurrency
     * @param minDemand skip claiming unless at least this many slots are free; {@link ConfigKeys#AUTO}: a quarter
     *                  of the queue's concurrency plus prefetch, at least 1
     * @param startAtInsert whether an insert may claim its own row for a free local slot ({@link ConfigKeys#START_AT_INSERT})
     */
    public record PollConfig(Duration interval, Duration maxInterval, int prefetch, int minDemand, boolean startAtInsert) {
        /**
         * @param concurrency a queue's concurrency
         * @return the rows that queue buffers beyond its running slots
         */
        public int prefetchFor(int concurrency) {
            return prefetch == ConfigKeys.AUTO ? AutoDemand.initialPrefetch(concurrency) : prefetch;
        }

        /**
         * @param concurrency a queue's concurrency
         * @return the fewest free slots (plus prefetch) worth a claim on that queue
         */
        public int minDemandFor(int concurrency) {
            return minDemand == ConfigKeys.AUTO ? AutoDemand.minDemand(concurrency, prefetchFor(concurrency)) : minDemand;
        }

        /** Validates the keys, and the ceiling against the base poll. */
        public PollConfig {
            POLL_INTERVAL.check(interval);
            MAX_POLL_INTERVAL.check(maxInterval);
            if (maxInterval.compareTo(interval) < 0) {
                throw MAX_POLL_INTERVAL.reject("", maxInterval, "a duration of at least " + POLL_INTERVAL.key() + " (" + interval + ")");
            }
            PREFETCH.check(prefetch);
            MIN_DEMAND.check(minDemand);
        }
    }

    /** Stopping. @param timeout how long a stopping queue waits for in-flight steps (and each flusher for its last outcomes) */
    public record DrainConfig(Duration timeout) {
        /** Validates the key. */
        public DrainConfig {
            DRAIN_TIMEOUT.check(timeout);
        }
    }

    /** Reaper settings. @param enabled run it on this node @param interval between sweeps @param batch rows per statement */
    public record ReaperConfig(boolean enabled, Duration interval, int batch) {
        /** Validates the keys. */
        public ReaperConfig {
            REAPER_INTERVAL.check(interval);
            REAPER_BATCH.check(batch);
        }
    }

    /** GC settings. @param enabled run it here @param interval between sweeps @param retention kept after termination @param batch rows per sweep */
    public record GcConfig(boolean enabled, Duration interval, Duration retention, Duration failedRetention, int batch) {
        /** Validates the keys. */
        public GcConfig {
            GC_INTERVAL.check(interval);
            GC_RETENTION.check(retention);
            GC_FAILED_RETENTION.check(failedRetention);
            GC_BATCH.check(batch);
        }
    }

    /**
     * A group-commit flusher. @param queues the queues it serves, or {@code *} for all
     * @param maxBatch flush when this many outcomes wait @param maxDelay or this long after the first
     * @param parallelism how many flush transactions may be open at once (outcomes that arrive
     *                    while one commits start the next instead of waiting for it)
     */
    public record FlusherConfig(List<String> queues, int maxBatch, Duration maxDelay, int parallelism) {
        /** A flusher with the default parallelism. */
        public FlusherConfig(List<String> queues, int maxBatch, Duration maxDelay) {
            this(queues, maxBatch, maxDelay, FLUSHER_PARALLELISM.defaultValue());
        }

        /** Validates the keys (named {@code gendurable.flushers[].…}: a flusher does not know its index). */
        public FlusherConfig {
            queues = List.copyOf(queues);
            FLUSHER_QUEUES.check(queues);
            FLUSHER_MAX_BATCH.check(maxBatch);
            FLUSHER_MAX_DELAY.check(maxDelay);
            FLUSHER_PARALLELISM.check(parallelism);
        }

        /** @return the default flusher: every queue, with the catalogue's defaults */
        public static FlusherConfig defaults() {
            return new FlusherConfig(FLUSHER_QUEUES.defaultValue(), FLUSHER_MAX_BATCH.defaultValue(),
                    FLUSHER_MAX_DELAY.defaultValue(), FLUSHER_PARALLELISM.defaultValue());
        }

        /** @param queue a queue @return whether this flusher serves it */
        public boolean serves(String queue) {
            return queues.contains("*") || queues.contains(queue);
        }
    }

    /** The engine's tables. @param name their PostgreSQL schema @param migrateAtStart whether Flyway runs at start-up */
    public record SchemaConfig(String name, boolean migrateAtStart) {
        /** Validates the schema name (an IllegalArgumentException naming {@code gendurable.schema}). */
        public SchemaConfig {
            SCHEMA.check(name);
        }
    }

    /**
     * Pokes. @param transport local, or postgres (every node)
     * @param window with postgres pokes, the shortest time between two notifications of a node: the
     *               first poke after a quiet window goes out at once, later ones wait for the window
     *               to end and go out together; zero sends each poke on its own
     * @param probeInterval with postgres pokes, how often the listener proves its connection alive
     *               (a probe under a network timeout of the same length)
     */
    public record PokeConfig(PokeTransport transport, Duration window, Duration probeInterval) {
        /** Validates the keys. */
        public PokeConfig {
            POKE.check(transport);
            POKE_WINDOW.check(window);
            POKE_PROBE_INTERVAL.check(probeInterval);
        }

        /** Pokes with the default probe interval. */
        public PokeConfig(PokeTransport transport, Duration window) {
            this(transport, window, POKE_PROBE_INTERVAL.defaultValue());
        }
    }

    /** The await bridge. @param tick how often it probes rows committed by other nodes */
    public record AwaitConfig(Duration tick) {
        /** Validates the key. */
        public AwaitConfig {
            AWAIT_TICK.check(tick);
        }
    }

    /**
     * The step history. @param enabled for every FSM (else per {@code @DurableFsm(history = true)})
     * @param includeState whether records keep the committed state @param retention how long records are kept
     */
    public record HistoryConfig(boolean enabled, boolean includeState, Duration retention) {
        /** Validates the keys. */
        public HistoryConfig {
            HISTORY_RETENTION.check(retention);
        }
    }

    /** JSON values. @param maxBytes the largest value (state, result, signal payload) accepted, in UTF-8 bytes */
    public record ValuesConfig(int maxBytes) {
        /** Validates the key. */
        public ValuesConfig {
            MAX_VALUE_BYTES.check(maxBytes);
        }
    }

    /**
     * The recurring schedules. @param enabled whether this node fires them
     * @param interval how often it looks for due ones @param misfireThreshold how late a fire time may be found
     */
    public record SchedulesConfig(boolean enabled, Duration interval, Duration misfireThreshold) {
        /** Validates the keys. */
        public SchedulesConfig {
            SCHEDULES_INTERVAL.check(interval);
            SCHEDULES_MISFIRE_THRESHOLD.check(misfireThreshold);
        }
    }

    /** The queue gauges. @param enabled run their query on this node @param interval between two runs */
    public record GaugesConfig(boolean enabled, Duration interval) {
        /** Validates the keys. */
        public GaugesConfig {
            GAUGES_INTERVAL.check(interval);
        }
    }

    /**
     * The health checks. @param timeout how long readiness waits for the database's answer
     * @param stallGrace liveness reports a loop stalled when its last iteration began longer ago than
     *                   three of its intervals plus this
     */
    public record HealthConfig(Duration timeout, Duration stallGrace) {
        /** Validates the keys. */
        public HealthConfig {
            HEALTH_TIMEOUT.check(timeout);
            HEALTH_STALL_GRACE.check(stallGrace);
        }
    }

    /**
     * The node beacon. @param beaconInterval how often this node writes its row
     * @param retention how long the row of a node that stopped writing is kept; at least three intervals
     */
    public record NodesConfig(Duration beaconInterval, Duration retention) {
        /** Validates both keys, and the retention against the interval. */
        public NodesConfig {
            NODES_BEACON_INTERVAL.check(beaconInterval);
            NODES_RETENTION.check(retention);
            if (retention.compareTo(beaconInterval.multipliedBy(3)) < 0) {
                throw NODES_RETENTION.reject("", retention, "a duration of at least three times "
                        + NODES_BEACON_INTERVAL.key() + " (" + beaconInterval.multipliedBy(3) + ")");
            }
        }
    }
}
