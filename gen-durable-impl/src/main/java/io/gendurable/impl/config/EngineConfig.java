package io.gendurable.impl.config;

import java.time.Duration;
import java.util.HashMap;
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
import static io.gendurable.impl.config.ConfigKeys.POKE_PROBE_INTERVAL;
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
 * The engine's effective configuration, validated: one record per part of the engine
 * ({@link ConfigParts}, each checking its own keys); this record checks the rules across parts
 * (every queue has a flusher, {@code min-demand} fits every queue) and says where each key's value
 * sits (the catalogue, {@link ConfigKeys}, knows no record).
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
                           NodesConfig nodes, LimiterBackend limiter, RedisConfig redis, StepsConfig steps)
        implements ConfigParts {

    // where each key's value sits in the records (the catalogue knows no record); a key left out fails here
    private static final KeyGetters<EngineConfig> VALUES = new KeyGetters<EngineConfig>(ConfigCatalogue.engineKeys())
            .with(NODE_ID, c -> c.node().id())
            .with(QUEUES, c -> c.node().queues())
            .with(LEASE_TTL, c -> c.lease().ttl())
            .with(HEARTBEAT_INTERVAL, c -> c.lease().heartbeatInterval())
            .with(STEP_TIMEOUT, c -> c.steps().timeout())
            .with(STEP_TIMEOUT_GRACE, c -> c.steps().timeoutGrace())
            .with(POLL_INTERVAL, c -> c.poll().interval())
            .with(MAX_POLL_INTERVAL, c -> c.poll().maxInterval())
            .with(PREFETCH, c -> c.poll().prefetch())
            .with(MIN_DEMAND, c -> c.poll().minDemand())
            .with(START_AT_INSERT, c -> c.poll().startAtInsert())
            .with(DRAIN_TIMEOUT, c -> c.drain().timeout())
            .with(REAPER_ENABLED, c -> c.reaper().enabled())
            .with(REAPER_INTERVAL, c -> c.reaper().interval())
            .with(REAPER_BATCH, c -> c.reaper().batch())
            .with(GC_ENABLED, c -> c.gc().enabled())
            .with(GC_INTERVAL, c -> c.gc().interval())
            .with(GC_RETENTION, c -> c.gc().retention())
            .with(GC_FAILED_RETENTION, c -> c.gc().failedRetention())
            .with(GC_BATCH, c -> c.gc().batch())
            .with(SCHEMA, c -> c.schema().name())
            .with(MIGRATE_AT_START, c -> c.schema().migrateAtStart())
            .with(POKE, c -> c.poke().transport())
            .with(POKE_WINDOW, c -> c.poke().window())
            .with(POKE_PROBE_INTERVAL, c -> c.poke().probeInterval())
            .with(LIMITER, EngineConfig::limiter)
            .with(REDIS_URL, c -> c.redis().url())
            .with(REDIS_TIMEOUT, c -> c.redis().timeout())
            .with(AWAIT_TICK, c -> c.await().tick())
            .with(HISTORY_ENABLED, c -> c.history().enabled())
            .with(HISTORY_INCLUDE_STATE, c -> c.history().includeState())
            .with(HISTORY_RETENTION, c -> c.history().retention())
            .with(SCHEDULES_ENABLED, c -> c.schedules().enabled())
            .with(SCHEDULES_INTERVAL, c -> c.schedules().interval())
            .with(SCHEDULES_MISFIRE_THRESHOLD, c -> c.schedules().misfireThreshold())
            .with(GAUGES_ENABLED, c -> c.gauges().enabled())
            .with(GAUGES_INTERVAL, c -> c.gauges().interval())
            .with(NODES_BEACON_INTERVAL, c -> c.nodes().beaconInterval())
            .with(NODES_RETENTION, c -> c.nodes().retention())
            .with(HEALTH_TIMEOUT, c -> c.health().timeout())
            .with(HEALTH_STALL_GRACE, c -> c.health().stallGrace())
            .with(MAX_VALUE_BYTES, c -> c.values().maxBytes())
            .complete();
    private static final KeyGetters<FlusherConfig> FLUSHER_VALUES = new KeyGetters<FlusherConfig>(ConfigCatalogue.members(ConfigKeys.FLUSHERS))
            .with(ConfigKeys.FLUSHER_QUEUES, FlusherConfig::queues)
            .with(ConfigKeys.FLUSHER_MAX_BATCH, FlusherConfig::maxBatch)
            .with(ConfigKeys.FLUSHER_MAX_DELAY, FlusherConfig::maxDelay)
            .with(ConfigKeys.FLUSHER_PARALLELISM, FlusherConfig::parallelism)
            .complete();
    private static final KeyGetters<LimitsConfig.RateLimit> RATE_VALUES = new KeyGetters<LimitsConfig.RateLimit>(ConfigCatalogue.members(ConfigKeys.RATE_LIMITS))
            .with(ConfigKeys.RATE_ALLOWED, LimitsConfig.RateLimit::allowed)
            .with(ConfigKeys.RATE_PERIOD, LimitsConfig.RateLimit::period)
            .with(ConfigKeys.RATE_BURST, LimitsConfig.RateLimit::burst)
            .with(ConfigKeys.RATE_SHARDS, LimitsConfig.RateLimit::shards)
            .complete();
    private static final KeyGetters<LimitsConfig.Gate> GATE_VALUES = new KeyGetters<LimitsConfig.Gate>(ConfigCatalogue.members(ConfigKeys.CONCURRENCY_LIMITS))
            .with(ConfigKeys.GATE_LIMIT, LimitsConfig.Gate::limit)
            .with(ConfigKeys.GATE_SHARDS, LimitsConfig.Gate::shards)
            .complete();

    /** @return whether this node talks to Redis (the redis limiter or the redis poke) */
    public boolean usesRedis() {
        return limiter == LimiterBackend.REDIS || poke.transport() == PokeTransport.REDIS;
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
                                + (e.getValue() + poll.prefetchFor(e.getValue())) + "), or that queue would never claim");
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
        VALUES.keys().forEach(k -> b.copy(k, this));
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
        describe(line, VALUES, "", this);
        for (int i = 0; i < flushers.size(); i++) {
            describe(line, FLUSHER_VALUES, String.valueOf(i), flushers.get(i));
        }
        limits.rateLimits().forEach((name, r) -> describe(line, RATE_VALUES, name, r));
        limits.concurrencyLimits().forEach((name, g) -> describe(line, GATE_VALUES, name, g));
        return line.toString();
    }

    private static <O> void describe(StringJoiner line, KeyGetters<O> getters, String member, O owner) {
        getters.keys().forEach(k -> line.add(getters.describe(k, member, owner)));
    }

    /**
     * Builds an {@link EngineConfig}: starts from the catalogue's defaults (or a configuration's
     * values), takes any key, and validates everything once, in {@link #build()}.
     */
    public static final class Builder {
        private final Map<ConfigKey<?>, Object> values = new HashMap<>();
        private List<FlusherConfig> flushers = List.of(FlusherConfig.defaults());
        private LimitsConfig limits = LimitsConfig.none();

        private Builder() {
            ConfigCatalogue.engineKeys().forEach(k -> values.put(k, k.defaultValue()));
        }

        /**
         * @param key   a key {@link EngineConfig} holds
         * @param value its value (validated by {@link #build()})
         * @param <T>   the value's type
         * @return this
         * @throws IllegalArgumentException for a key no engine record holds (a family member, a container key)
         */
        public <T> Builder set(ConfigKey<T> key, T value) {
            if (!values.containsKey(key)) {
                throw new IllegalArgumentException(key + " is not a key EngineConfig holds");
            }
            values.put(key, value);
            return this;
        }

        private <T> void copy(ConfigKey<T> key, EngineConfig from) {
            set(key, VALUES.get(key, from));
        }

        @SuppressWarnings("unchecked")
        private <T> T get(ConfigKey<T> key) {
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
            return set(POKE_PROBE_INTERVAL, v);
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
                    new PokeConfig(get(POKE), get(POKE_WINDOW), get(POKE_PROBE_INTERVAL)),
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
