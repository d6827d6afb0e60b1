package io.gendurable.impl.config;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

import static io.gendurable.impl.config.ConfigKeys.AWAIT_TICK;
import static io.gendurable.impl.config.ConfigKeys.DRAIN_TIMEOUT;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_MAX_BATCH;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_MAX_DELAY;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_PARALLELISM;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_QUEUES;
import static io.gendurable.impl.config.ConfigKeys.GC_BATCH;
import static io.gendurable.impl.config.ConfigKeys.GC_ENABLED;
import static io.gendurable.impl.config.ConfigKeys.GC_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.GAUGES_ENABLED;
import static io.gendurable.impl.config.ConfigKeys.GAUGES_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.SCHEDULES_ENABLED;
import static io.gendurable.impl.config.ConfigKeys.SCHEDULES_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.SCHEDULES_MISFIRE_THRESHOLD;
import static io.gendurable.impl.config.ConfigKeys.GC_FAILED_RETENTION;
import static io.gendurable.impl.config.ConfigKeys.GC_RETENTION;
import static io.gendurable.impl.config.ConfigKeys.HEALTH_STALL_GRACE;
import static io.gendurable.impl.config.ConfigKeys.HEALTH_TIMEOUT;
import static io.gendurable.impl.config.ConfigKeys.HISTORY_ENABLED;
import static io.gendurable.impl.config.ConfigKeys.HISTORY_INCLUDE_STATE;
import static io.gendurable.impl.config.ConfigKeys.HISTORY_RETENTION;
import static io.gendurable.impl.config.ConfigKeys.HEARTBEAT_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.LEASE_TTL;
import static io.gendurable.impl.config.ConfigKeys.MAX_POLL_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.MAX_VALUE_BYTES;
import static io.gendurable.impl.config.ConfigKeys.MIGRATE_AT_START;
import static io.gendurable.impl.config.ConfigKeys.MIN_DEMAND;
import static io.gendurable.impl.config.ConfigKeys.NODES_BEACON_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.NODES_RETENTION;
import static io.gendurable.impl.config.ConfigKeys.NODE_ID;
import static io.gendurable.impl.config.ConfigKeys.POKE;
import static io.gendurable.impl.config.ConfigKeys.POKE_WINDOW;
import static io.gendurable.impl.config.ConfigKeys.POLL_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.PREFETCH;
import static io.gendurable.impl.config.ConfigKeys.START_AT_INSERT;
import static io.gendurable.impl.config.ConfigKeys.STEP_TIMEOUT;
import static io.gendurable.impl.config.ConfigKeys.STEP_TIMEOUT_GRACE;
import static io.gendurable.impl.config.ConfigKeys.QUEUES;
import static io.gendurable.impl.config.ConfigKeys.REAPER_BATCH;
import static io.gendurable.impl.config.ConfigKeys.REAPER_ENABLED;
import static io.gendurable.impl.config.ConfigKeys.REAPER_INTERVAL;
import static io.gendurable.impl.config.ConfigKeys.SCHEMA;
import static io.gendurable.impl.config.ConfigKeys.LIMITER;
import static io.gendurable.impl.config.ConfigKeys.REDIS_TIMEOUT;
import static io.gendurable.impl.config.ConfigKeys.REDIS_URL;

/**
 * The engine's effective configuration, validated: one small record per part of the engine, each
 * checking its own keys (as declared in {@link ConfigKeys}) and the rules between them; this record
 * checks the rules across parts (every queue has a flusher, {@code min-demand} fits every queue).
 * Read it with {@link ConfigReader} from {@code gendurable.*} keys, or build it with
 * {@link #builder()} (the catalogue's defaults) or {@link #toBuilder()} (a tweak of this one).
 *
 * @param node     this node's identity and queues
 * @param lease    how long a claim is trusted and how often it is extended
 * @param poll     how each queue polls and claims
 * @param drain    how a stopping node waits for its work
 * @param reaper   the reaper's settings
 * @param gc       the GC's settings
 * @param flushers the group-commit flushers; each queue goes to the first that matches
 * @param schema   the engine's tables and their migration
 * @param poke     how inserts and wakes reach the schedulers
 * @param await    the await bridge's settings
 * @param values   the bounds on JSON values
 * @param history  the step history
 * @param limits   the rate limits and concurrency gates
 * @param gauges   the queue gauges' query
 * @param health   the health checks' bounds
 * @param schedules the recurring schedules' loop
 * @param nodes    the node beacon
 * @param limiter  where the configured gates and rate limits are admitted
 * @param redis    the Redis of the redis limiter and poke
 * @param steps    the step timeouts
 */
public record EngineConfig(NodeConfig node, LeaseConfig lease, PollConfig poll, DrainConfig drain, ReaperConfig reaper,
                           GcConfig gc, List<FlusherConfig> flushers, SchemaConfig schema, PokeConfig poke,
                           AwaitConfig await, ValuesConfig values, HistoryConfig history, LimitsConfig limits,
                           GaugesConfig gauges, HealthConfig health, SchedulesConfig schedules,
                           NodesConfig nodes, LimiterBackend limiter, RedisConfig redis, StepsConfig steps) {

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

    /** How inserts and engine-driven wakes announce runnable work. */
    public enum PokeTransport {
        /** this JVM's schedulers only */
        LOCAL,
        /** every node, over PostgreSQL LISTEN/NOTIFY */
        POSTGRES,
        /** every node, over Redis Pub/Sub */
        REDIS
    }

    /** Where the configured gates and rate limits are admitted. */
    public enum LimiterBackend {
        /** sharded counters in {@code gen_durable_buckets} */
        POSTGRES,
        /** lease-scored sorted sets and token buckets in Redis */
        REDIS
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

    /** @return whether this node talks to Redis (the redis limiter or the redis poke) */
    public boolean usesRedis() {
        return limiter == LimiterBackend.REDIS || poke.transport() == PokeTransport.REDIS;
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
     * @param minDemand skip picking unless at least this many slots are free; {@link ConfigKeys#AUTO}: a quarter
     *                  of the queue's concurrency plus prefetch, at least 1
     * @param startAtInsert whether an insert may claim its own row for a free local slot ({@link ConfigKeys#START_AT_INSERT})
     */
    public record PollConfig(Duration interval, Duration maxInterval, int prefetch, int minDemand, boolean startAtInsert) {
        /**
         * @param concurrency a queue's concurrency
         * @return the rows that queue buffers beyond its running slots
         */
        public int prefetchFor(int concurrency) {
            return prefetch == ConfigKeys.AUTO ? concurrency : prefetch;
        }

        /**
         * @param concurrency a queue's concurrency
         * @return the fewest free slots (plus prefetch) worth a claim on that queue
         */
        public int minDemandFor(int concurrency) {
            return minDemand == ConfigKeys.AUTO ? Math.max(1, (concurrency + prefetchFor(concurrency)) / 4) : minDemand;
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
            ConfigKeys.POKE_PROBE_INTERVAL.check(probeInterval);
        }

        /** Pokes with the default probe interval. */
        public PokeConfig(PokeTransport transport, Duration window) {
            this(transport, window, ConfigKeys.POKE_PROBE_INTERVAL.defaultValue());
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

    /** Requires every part; validates the rules across parts; messages name the key. */
    public EngineConfig {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(poll, "poll");
        Objects.requireNonNull(drain, "drain");
        Objects.requireNonNull(reaper, "reaper");
        Objects.requireNonNull(gc, "gc");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(poke, "poke");
        Objects.requireNonNull(await, "await");
        Objects.requireNonNull(values, "values");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(gauges, "gauges");
        Objects.requireNonNull(health, "health");
        Objects.requireNonNull(nodes, "nodes");
        LIMITER.check(limiter);
        Objects.requireNonNull(redis, "redis");
        Objects.requireNonNull(steps, "steps");
        for (var e : node.queues().entrySet()) {
            if (poll.minDemandFor(e.getValue()) > e.getValue() + poll.prefetchFor(e.getValue())) {
                throw MIN_DEMAND.reject("", poll.minDemand(),
                        "at most the smallest queue's concurrency plus prefetch (queue " + e.getKey() + ": "
                                + (e.getValue() + poll.prefetchFor(e.getValue())) + "), or that queue would never pick");
            }
        }
        flushers = List.copyOf(flushers);
        if (flushers.isEmpty()) {
            throw new ConfigException(ConfigKey.PREFIX + ConfigKeys.FLUSHERS.path(""), "",
                    "at least one flusher (the default serves every queue)");
        }
        for (String q : node.queues().keySet()) {
            if (flushers.stream().noneMatch(f -> f.serves(q))) {
                throw new ConfigException(ConfigKey.PREFIX + ConfigKeys.FLUSHERS.path(""), "queue " + q,
                        "a flusher for every queue: add it to a flusher's queues, or use *");
            }
        }
    }

    /** @return the defaults: queue {@code default} with 10 slots, leases of 60 s, … (see docs/configuration.md) */
    public static EngineConfig defaults() {
        return builder().build();
    }

    /** @return a builder holding the catalogue's defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding this configuration, to change a few keys */
    public Builder toBuilder() {
        Builder b = new Builder();
        ConfigKeys.engineKeys().forEach(k -> b.copy(k, this));
        return b.flushers(flushers).limits(limits);
    }

    /** @return the flusher serving {@code queue} (the first that matches) */
    public FlusherConfig flusherFor(String queue) {
        return flushers.stream().filter(f -> f.serves(queue)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no flusher serves queue " + queue));
    }

    /**
     * @return the effective configuration as one log line, {@code key=value} for every key the
     * engine holds, in the catalogue's order (no secrets: a password in {@code redis.url} is masked)
     */
    public String describe() {
        StringJoiner line = new StringJoiner(" ");
        ConfigKeys.engineKeys().forEach(k -> line.add(describe(k, "", this)));
        for (int i = 0; i < flushers.size(); i++) {
            describeMembers(line, ConfigKeys.FLUSHERS, String.valueOf(i), flushers.get(i));
        }
        limits.rateLimits().forEach((name, r) -> describeMembers(line, ConfigKeys.RATE_LIMITS, name, r));
        limits.concurrencyLimits().forEach((name, g) -> describeMembers(line, ConfigKeys.CONCURRENCY_LIMITS, name, g));
        return line.toString();
    }

    @SuppressWarnings("unchecked")
    private static <O> void describeMembers(StringJoiner line, ConfigKey.Family family, String member, O owner) {
        ConfigKeys.members(family).forEach(k -> line.add(describe((ConfigKey<O, ?>) k, member, owner)));
    }

    private static <O, T> String describe(ConfigKey<O, T> key, String member, O owner) {
        return key.key(member).substring(ConfigKey.PREFIX.length()) + "=" + key.format(key.get(owner));
    }

    /**
     * Builds an {@link EngineConfig}: starts from the catalogue's defaults (or a configuration's
     * values), takes any key, and validates everything once, in {@link #build()}.
     */
    public static final class Builder {
        private final Map<ConfigKey<EngineConfig, ?>, Object> values = new HashMap<>();
        private List<FlusherConfig> flushers = List.of(FlusherConfig.defaults());
        private LimitsConfig limits = LimitsConfig.none();

        private Builder() {
            ConfigKeys.engineKeys().forEach(k -> values.put(k, k.defaultValue()));
        }

        /**
         * @param key   a key {@link EngineConfig} holds
         * @param value its value (validated by {@link #build()})
         * @param <T>   the value's type
         * @return this
         */
        public <T> Builder set(ConfigKey<EngineConfig, T> key, T value) {
            values.put(key, value);
            return this;
        }

        private <T> void copy(ConfigKey<EngineConfig, T> key, EngineConfig from) {
            set(key, key.get(from));
        }

        @SuppressWarnings("unchecked")
        private <T> T get(ConfigKey<EngineConfig, T> key) {
            return (T) values.get(key);
        }

        /** @param v {@code gendurable.node-id} @return this */
        public Builder nodeId(String v) {
            return set(NODE_ID, v);
        }

        /** @param v {@code gendurable.queues}: queue → concurrency, in order @return this */
        public Builder queues(Map<String, Integer> v) {
            return set(QUEUES, v);
        }

        /** @param ttl {@code gendurable.lease-ttl} @param heartbeat {@code gendurable.heartbeat-interval} @return this */
        public Builder lease(Duration ttl, Duration heartbeat) {
            return set(LEASE_TTL, ttl).set(HEARTBEAT_INTERVAL, heartbeat);
        }

        /** @param poll {@code gendurable.poll-interval} @param maxPoll {@code gendurable.max-poll-interval} @return this */
        public Builder poll(Duration poll, Duration maxPoll) {
            return set(POLL_INTERVAL, poll).set(MAX_POLL_INTERVAL, maxPoll);
        }

        /** @param v {@code gendurable.prefetch} @return this */
        public Builder prefetch(int v) {
            return set(PREFETCH, v);
        }

        /** @param v {@code gendurable.min-demand} @return this */
        public Builder minDemand(int v) {
            return set(MIN_DEMAND, v);
        }

        /** @param v {@code gendurable.start-at-insert} @return this */
        public Builder startAtInsert(boolean v) {
            return set(START_AT_INSERT, v);
        }

        /** @param timeout {@code gendurable.step-timeout} (zero: none) @param grace {@code gendurable.step-timeout-grace} @return this */
        public Builder stepTimeout(Duration timeout, Duration grace) {
            return set(STEP_TIMEOUT, timeout).set(STEP_TIMEOUT_GRACE, grace);
        }

        /** @param v {@code gendurable.drain-timeout} @return this */
        public Builder drainTimeout(Duration v) {
            return set(DRAIN_TIMEOUT, v);
        }

        /** @param v the {@code gendurable.reaper.*} keys @return this */
        public Builder reaper(ReaperConfig v) {
            return set(REAPER_ENABLED, v.enabled()).set(REAPER_INTERVAL, v.interval()).set(REAPER_BATCH, v.batch());
        }

        /** @param v the {@code gendurable.history.*} keys @return this */
        public Builder history(HistoryConfig v) {
            return set(HISTORY_ENABLED, v.enabled()).set(HISTORY_INCLUDE_STATE, v.includeState())
                    .set(HISTORY_RETENTION, v.retention());
        }

        /** @param v the {@code gendurable.gc.*} keys @return this */
        public Builder gc(GcConfig v) {
            return set(GC_ENABLED, v.enabled()).set(GC_INTERVAL, v.interval()).set(GC_RETENTION, v.retention())
                    .set(GC_FAILED_RETENTION, v.failedRetention())
                    .set(GC_BATCH, v.batch());
        }

        /** @param v the flushers, {@code gendurable.flushers[i].*} @return this */
        public Builder flushers(List<FlusherConfig> v) {
            this.flushers = Objects.requireNonNull(v, "flushers");
            return this;
        }

        /** @param v {@code gendurable.schema} @return this */
        public Builder schema(String v) {
            return set(SCHEMA, v);
        }

        /** @param v {@code gendurable.migrate-at-start} @return this */
        public Builder migrateAtStart(boolean v) {
            return set(MIGRATE_AT_START, v);
        }

        /** @param v {@code gendurable.poke} @return this */
        public Builder poke(PokeTransport v) {
            return set(POKE, v);
        }

        /** @param v {@code gendurable.poke.window} @return this */
        public Builder pokeProbeInterval(Duration v) {
            return set(ConfigKeys.POKE_PROBE_INTERVAL, v);
        }

        public Builder pokeWindow(Duration v) {
            return set(POKE_WINDOW, v);
        }

        /** @param v {@code gendurable.limiter} @return this */
        public Builder limiter(LimiterBackend v) {
            return set(LIMITER, v);
        }

        /** @param v {@code gendurable.redis.url} @return this */
        public Builder redisUrl(String v) {
            return set(REDIS_URL, v);
        }

        /** @param v {@code gendurable.await.tick} @return this */
        public Builder awaitTick(Duration v) {
            return set(AWAIT_TICK, v);
        }

        /** @param v {@code gendurable.max-value-bytes} @return this */
        public Builder maxValueBytes(int v) {
            return set(MAX_VALUE_BYTES, v);
        }

        /** @param v the {@code gendurable.schedules.*} keys @return this */
        public Builder schedules(SchedulesConfig v) {
            return set(SCHEDULES_ENABLED, v.enabled()).set(SCHEDULES_INTERVAL, v.interval())
                    .set(SCHEDULES_MISFIRE_THRESHOLD, v.misfireThreshold());
        }

        /** @param v the {@code gendurable.gauges.*} keys @return this */
        public Builder gauges(GaugesConfig v) {
            return set(GAUGES_ENABLED, v.enabled()).set(GAUGES_INTERVAL, v.interval());
        }

        /** @param v the {@code gendurable.health.*} keys @return this */
        public Builder health(HealthConfig v) {
            return set(HEALTH_TIMEOUT, v.timeout()).set(HEALTH_STALL_GRACE, v.stallGrace());
        }

        /** @param v the {@code gendurable.nodes.*} keys @return this */
        public Builder nodes(NodesConfig v) {
            return set(NODES_BEACON_INTERVAL, v.beaconInterval()).set(NODES_RETENTION, v.retention());
        }

        /** @param v the rate limits and gates, {@code gendurable.rate-limits.*} and {@code gendurable.concurrency-limits.*} @return this */
        public Builder limits(LimitsConfig v) {
            this.limits = Objects.requireNonNull(v, "limits");
            return this;
        }

        /**
         * @return the configuration
         * @throws ConfigException naming the first invalid key (the schema: an IllegalArgumentException naming it)
         */
        public EngineConfig build() {
            return new EngineConfig(new NodeConfig(get(NODE_ID), get(QUEUES)),
                    new LeaseConfig(get(LEASE_TTL), get(HEARTBEAT_INTERVAL)),
                    new PollConfig(get(POLL_INTERVAL), get(MAX_POLL_INTERVAL), get(PREFETCH), get(MIN_DEMAND),
                            get(START_AT_INSERT)),
                    new DrainConfig(get(DRAIN_TIMEOUT)),
                    new ReaperConfig(get(REAPER_ENABLED), get(REAPER_INTERVAL), get(REAPER_BATCH)),
                    new GcConfig(get(GC_ENABLED), get(GC_INTERVAL), get(GC_RETENTION), get(GC_FAILED_RETENTION), get(GC_BATCH)),
                    flushers,
                    new SchemaConfig(get(SCHEMA), get(MIGRATE_AT_START)),
                    new PokeConfig(get(POKE), get(POKE_WINDOW), get(ConfigKeys.POKE_PROBE_INTERVAL)),
                    new AwaitConfig(get(AWAIT_TICK)),
                    new ValuesConfig(get(MAX_VALUE_BYTES)),
                    new HistoryConfig(get(HISTORY_ENABLED), get(HISTORY_INCLUDE_STATE), get(HISTORY_RETENTION)),
                    limits,
                    new GaugesConfig(get(GAUGES_ENABLED), get(GAUGES_INTERVAL)),
                    new HealthConfig(get(HEALTH_TIMEOUT), get(HEALTH_STALL_GRACE)),
                    new SchedulesConfig(get(SCHEDULES_ENABLED), get(SCHEDULES_INTERVAL), get(SCHEDULES_MISFIRE_THRESHOLD)),
                    new NodesConfig(get(NODES_BEACON_INTERVAL), get(NODES_RETENTION)),
                    get(LIMITER), new RedisConfig(get(REDIS_URL), get(REDIS_TIMEOUT)),
                    new StepsConfig(get(STEP_TIMEOUT), get(STEP_TIMEOUT_GRACE)));
        }
    }
}
