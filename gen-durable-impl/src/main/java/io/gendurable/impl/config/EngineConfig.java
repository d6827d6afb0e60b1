package io.gendurable.impl.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The engine's effective configuration, validated. Build it with {@link ConfigReader} from
 * {@code gendurable.*} keys, or directly in tests through {@link #defaults()} and the withers.
 *
 * @param nodeId            this node's identity, part of every worker id (start-up reclaim)
 * @param queues            queue name → concurrency (steps in flight at once on this node)
 * @param leaseTtl          how long a claim is trusted without a heartbeat
 * @param heartbeatInterval how often claims are extended
 * @param pollInterval      the base idle poll
 * @param maxPollInterval   the idle backoff ceiling
 * @param prefetch          rows each queue buffers beyond its running slots
 * @param minDemand         skip picking unless at least this many slots are free
 * @param drainTimeout      how long a stopping queue waits for in-flight steps
 * @param reaper            the reaper's settings
 * @param gc                the GC's settings
 * @param flushers          the group-commit flushers; each queue goes to the first that matches
 * @param schema            the database schema of the engine's tables
 * @param migrateAtStart    whether Flyway runs at start-up
 * @param poke              how inserts and wakes reach the schedulers: local, or postgres (every node)
 * @param pokeWindow        with postgres pokes, the shortest time between two notifications of a node: the
 *                          first poke after a quiet window goes out at once, later ones wait for the window
 *                          to end and go out together; zero sends each poke on its own
 * @param awaitTick         how often the await bridge probes rows committed by other nodes
 * @param limits            the rate limits and concurrency gates
 * @param maxValueBytes     the largest JSON value (state, result, signal payload) accepted, in UTF-8 bytes
 */
public record EngineConfig(String nodeId, Map<String, Integer> queues, Duration leaseTtl, Duration heartbeatInterval,
                           Duration pollInterval, Duration maxPollInterval, int prefetch, int minDemand,
                           Duration drainTimeout, ReaperConfig reaper, GcConfig gc, List<FlusherConfig> flushers,
                           String schema, boolean migrateAtStart, PokeTransport poke, Duration pokeWindow, Duration awaitTick,
                           LimitsConfig limits, int maxValueBytes) {

    /** The default of {@code gendurable.max-value-bytes}: 1 MiB. */
    public static final int DEFAULT_MAX_VALUE_BYTES = 1 << 20;

    /** The largest {@code gendurable.max-value-bytes}: 64 MiB (a jsonb value stops at 255 MiB, a claim batch far earlier). */
    public static final int MAX_VALUE_BYTES_CEILING = 64 << 20;

    /** The default of {@code gendurable.poke.window} (see docs/performance.md for the measurements behind it). */
    public static final Duration DEFAULT_POKE_WINDOW = Duration.ofMillis(50);

    /** The longest {@code gendurable.poke.window}: beyond it, pokes would lag the default poll. */
    public static final Duration MAX_POKE_WINDOW = Duration.ofSeconds(1);

    /** How inserts and engine-driven wakes announce runnable work. */
    public enum PokeTransport {
        /** this JVM's schedulers only */
        LOCAL,
        /** every node, over PostgreSQL LISTEN/NOTIFY */
        POSTGRES
    }

    /** Reaper settings. @param enabled run it on this node @param interval between sweeps @param batch rows per statement */
    public record ReaperConfig(boolean enabled, Duration interval, int batch) {
        public ReaperConfig {
            positive("gendurable.reaper.interval", interval);
            if (batch < 1) {
                throw new ConfigException("gendurable.reaper.batch", String.valueOf(batch), "an integer of 1 or more");
            }
        }
    }

    /** GC settings. @param enabled run it here @param interval between sweeps @param retention kept after termination @param batch rows per sweep */
    public record GcConfig(boolean enabled, Duration interval, Duration retention, int batch) {
        public GcConfig {
            positive("gendurable.gc.interval", interval);
            Objects.requireNonNull(retention, "retention");
            if (retention.isNegative()) {
                throw new ConfigException("gendurable.gc.retention", retention.toString(), "a duration of zero or more");
            }
            if (batch < 1) {
                throw new ConfigException("gendurable.gc.batch", String.valueOf(batch), "an integer of 1 or more");
            }
        }
    }

    /**
     * A group-commit flusher. @param queues the queues it serves, or {@code *} for all
     * @param maxBatch flush when this many outcomes wait @param maxDelay or this long after the first
     * @param parallelism how many flush transactions may be open at once (outcomes that arrive
     *                    while one commits start the next instead of waiting for it)
     */
    public record FlusherConfig(List<String> queues, int maxBatch, Duration maxDelay, int parallelism) {
        /** The default number of concurrent flush transactions per flusher. */
        public static final int DEFAULT_PARALLELISM = 2;

        /** A flusher with the default parallelism. */
        public FlusherConfig(List<String> queues, int maxBatch, Duration maxDelay) {
            this(queues, maxBatch, maxDelay, DEFAULT_PARALLELISM);
        }

        public FlusherConfig {
            queues = List.copyOf(queues);
            if (queues.isEmpty()) {
                throw new ConfigException("gendurable.flushers[].queues", "", "a comma-separated list of queues, or *");
            }
            if (maxBatch < 1) {
                throw new ConfigException("gendurable.flushers[].max-batch", String.valueOf(maxBatch), "an integer of 1 or more");
            }
            Objects.requireNonNull(maxDelay, "maxDelay");
            if (maxDelay.isNegative()) {
                throw new ConfigException("gendurable.flushers[].max-delay", maxDelay.toString(), "a duration of zero or more");
            }
            if (parallelism < 1 || parallelism > 16) {
                throw new ConfigException("gendurable.flushers[].parallelism", String.valueOf(parallelism), "an integer from 1 to 16");
            }
        }

        /** @param queue a queue @return whether this flusher serves it */
        public boolean serves(String queue) {
            return queues.contains("*") || queues.contains(queue);
        }
    }

    /** Validates every field; messages name the key. */
    public EngineConfig {
        if (nodeId == null || nodeId.isBlank() || nodeId.length() > 100) {
            throw new ConfigException("gendurable.node-id", String.valueOf(nodeId), "a non-blank name of at most 100 characters");
        }
        queues = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(queues));
        queues.forEach((q, c) -> {
            if (q.isBlank()) {
                throw new ConfigException("gendurable.queues", "", "name:concurrency pairs with non-blank names");
            }
            if (c < 1) {
                throw new ConfigException("gendurable.queues", q + ":" + c, "a concurrency of 1 or more per queue");
            }
        });
        positive("gendurable.lease-ttl", leaseTtl);
        positive("gendurable.heartbeat-interval", heartbeatInterval);
        positive("gendurable.poll-interval", pollInterval);
        positive("gendurable.max-poll-interval", maxPollInterval);
        if (heartbeatInterval.compareTo(leaseTtl) >= 0) {
            throw new ConfigException("gendurable.heartbeat-interval", heartbeatInterval.toString(),
                    "a duration shorter than gendurable.lease-ttl (" + leaseTtl + "); keep it under a third of it");
        }
        if (maxPollInterval.compareTo(pollInterval) < 0) {
            throw new ConfigException("gendurable.max-poll-interval", maxPollInterval.toString(),
                    "a duration of at least gendurable.poll-interval (" + pollInterval + ")");
        }
        if (prefetch < 0) {
            throw new ConfigException("gendurable.prefetch", String.valueOf(prefetch), "an integer of 0 or more");
        }
        if (minDemand < 1) {
            throw new ConfigException("gendurable.min-demand", String.valueOf(minDemand), "an integer of 1 or more");
        }
        for (var e : queues.entrySet()) {
            if (minDemand > e.getValue() + prefetch) {
                throw new ConfigException("gendurable.min-demand", String.valueOf(minDemand),
                        "at most the smallest queue's concurrency plus prefetch (queue " + e.getKey() + ": "
                                + (e.getValue() + prefetch) + "), or that queue would never pick");
            }
        }
        Objects.requireNonNull(drainTimeout, "drainTimeout");
        if (drainTimeout.isNegative()) {
            throw new ConfigException("gendurable.drain-timeout", drainTimeout.toString(), "a duration of zero or more");
        }
        Objects.requireNonNull(reaper, "reaper");
        Objects.requireNonNull(gc, "gc");
        flushers = List.copyOf(flushers);
        if (flushers.isEmpty()) {
            throw new ConfigException("gendurable.flushers", "", "at least one flusher (the default serves every queue)");
        }
        for (String q : queues.keySet()) {
            if (flushers.stream().noneMatch(f -> f.serves(q))) {
                throw new ConfigException("gendurable.flushers", "queue " + q,
                        "a flusher for every queue: add it to a flusher's queues, or use *");
            }
        }
        new io.gendurable.impl.db.SchemaName(schema);
        Objects.requireNonNull(poke, "poke");
        if (pokeWindow == null || pokeWindow.isNegative() || pokeWindow.compareTo(MAX_POKE_WINDOW) > 0) {
            throw new ConfigException("gendurable.poke.window", String.valueOf(pokeWindow),
                    "a duration from 0 to " + MAX_POKE_WINDOW + " (default " + DEFAULT_POKE_WINDOW + ")");
        }
        Objects.requireNonNull(limits, "limits");
        positive("gendurable.await.tick", awaitTick);
        if (maxValueBytes < 1024 || maxValueBytes > MAX_VALUE_BYTES_CEILING) {
            throw new ConfigException("gendurable.max-value-bytes", String.valueOf(maxValueBytes),
                    "an integer from 1024 to " + MAX_VALUE_BYTES_CEILING + " (bytes; default " + DEFAULT_MAX_VALUE_BYTES + ")");
        }
    }

    static void positive(String key, Duration d) {
        // At least 1 ms: the loops schedule in milliseconds, where less is 0 (a hot poll, or a
        // fixed delay the executor refuses at start-up, after the migration already ran).
        if (d == null || d.toMillis() < 1) {
            throw new ConfigException(key, String.valueOf(d), "a positive duration of at least 1 ms");
        }
    }

    /** @return the defaults: queue {@code default} with 10 slots, leases of 60 s, … (see docs/configuration.md) */
    public static EngineConfig defaults() {
        return new EngineConfig(ConfigReader.defaultNodeId(), Map.of("default", 10), Duration.ofSeconds(60),
                Duration.ofSeconds(20), Duration.ofSeconds(1), Duration.ofSeconds(5), 0, 1, Duration.ofSeconds(5),
                new ReaperConfig(true, Duration.ofSeconds(30), 1000),
                new GcConfig(true, Duration.ofSeconds(60), Duration.ofDays(1), 10_000),
                List.of(new FlusherConfig(List.of("*"), 100, Duration.ofMillis(10))), "gendurable", true,
                PokeTransport.LOCAL, DEFAULT_POKE_WINDOW, Duration.ofMillis(25), LimitsConfig.none(),
                DEFAULT_MAX_VALUE_BYTES);
    }

    /** @return the flusher serving {@code queue} (the first that matches) */
    public FlusherConfig flusherFor(String queue) {
        return flushers.stream().filter(f -> f.serves(queue)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no flusher serves queue " + queue));
    }

    public EngineConfig withNodeId(String v) { return new EngineConfig(v, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, gc, flushers, schema, migrateAtStart, poke, pokeWindow, awaitTick, limits, maxValueBytes); }
    public EngineConfig withQueues(Map<String, Integer> v) { return new EngineConfig(nodeId, v, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, gc, flushers, schema, migrateAtStart, poke, pokeWindow, awaitTick, limits, maxValueBytes); }
    public EngineConfig withLease(Duration ttl, Duration heartbeat) { return new EngineConfig(nodeId, queues, ttl, heartbeat, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, gc, flushers, schema, migrateAtStart, poke, pokeWindow, awaitTick, limits, maxValueBytes); }
    public EngineConfig withPoll(Duration poll, Duration maxPoll) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, poll, maxPoll, prefetch, minDemand, drainTimeout, reaper, gc, flushers, schema, migrateAtStart, poke, pokeWindow, awaitTick, limits, maxValueBytes); }
    public EngineConfig withPrefetch(int v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, v, minDemand, drainTimeout, reaper, gc, flushers, schema, migrateAtStart, poke, pokeWindow, awaitTick, limits, maxValueBytes); }
    public EngineConfig withMinDemand(int v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, v, drainTimeout, reaper, gc, flushers, schema, migrateAtStart, poke, pokeWindow, awaitTick, limits, maxValueBytes); }
    public EngineConfig withDrainTimeout(Duration v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, v, reaper, gc, flushers, schema, migrateAtStart, poke, pokeWindow, awaitTick, limits, maxValueBytes); }
    public EngineConfig withReaper(ReaperConfig v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, v, gc, flushers, schema, migrateAtStart, poke, pokeWindow, awaitTick, limits, maxValueBytes); }
    public EngineConfig withGc(GcConfig v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, v, flushers, schema, migrateAtStart, poke, pokeWindow, awaitTick, limits, maxValueBytes); }
    public EngineConfig withFlushers(List<FlusherConfig> v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, gc, v, schema, migrateAtStart, poke, pokeWindow, awaitTick, limits, maxValueBytes); }
    public EngineConfig withSchema(String v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, gc, flushers, v, migrateAtStart, poke, pokeWindow, awaitTick, limits, maxValueBytes); }
    public EngineConfig withMigrateAtStart(boolean v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, gc, flushers, schema, v, poke, pokeWindow, awaitTick, limits, maxValueBytes); }

    public EngineConfig withPokeTransport(PokeTransport v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, gc, flushers, schema, migrateAtStart, v, pokeWindow, awaitTick, limits, maxValueBytes); }
    /** @param v the coalescing window of postgres pokes ({@code gendurable.poke.window}) @return a copy with it */
    public EngineConfig withPokeWindow(Duration v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, gc, flushers, schema, migrateAtStart, poke, v, awaitTick, limits, maxValueBytes); }
    public EngineConfig withAwaitTick(Duration v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, gc, flushers, schema, migrateAtStart, poke, pokeWindow, v, limits, maxValueBytes); }

    public EngineConfig withMaxValueBytes(int v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, gc, flushers, schema, migrateAtStart, poke, pokeWindow, awaitTick, limits, v); }
    public EngineConfig withLimits(LimitsConfig v) { return new EngineConfig(nodeId, queues, leaseTtl, heartbeatInterval, pollInterval, maxPollInterval, prefetch, minDemand, drainTimeout, reaper, gc, flushers, schema, migrateAtStart, poke, pokeWindow, awaitTick, v, maxValueBytes); }

    /** @return the effective configuration as one log line (no secrets: none are held here) */
    public String describe() {
        return "node-id=" + nodeId + " queues=" + queues + " lease-ttl=" + leaseTtl + " heartbeat-interval="
                + heartbeatInterval + " poll-interval=" + pollInterval + " max-poll-interval=" + maxPollInterval
                + " prefetch=" + prefetch + " min-demand=" + minDemand + " drain-timeout=" + drainTimeout
                + " reaper=" + reaper + " gc=" + gc + " flushers=" + flushers + " schema=" + schema
                + " migrate-at-start=" + migrateAtStart + " poke=" + poke.name().toLowerCase(java.util.Locale.ROOT)
                + " poke.window=" + pokeWindow + " await.tick=" + awaitTick + " rate-limits=" + limits.rateLimits().values()
                + " concurrency-limits=" + limits.concurrencyLimits().values() + " max-value-bytes=" + maxValueBytes;
    }
}
