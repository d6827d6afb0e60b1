package io.gendurable.impl.config;

import io.gendurable.impl.config.ConfigKey.Check;
import io.gendurable.impl.config.ConfigKey.Family;
import io.gendurable.impl.config.EngineConfig.FlusherConfig;
import io.gendurable.impl.config.EngineConfig.LimiterBackend;
import io.gendurable.impl.config.EngineConfig.PokeTransport;
import io.gendurable.impl.config.LimitsConfig.Gate;
import io.gendurable.impl.config.LimitsConfig.RateLimit;
import io.gendurable.impl.db.SchemaName;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The catalogue of {@code gendurable.*} keys: each declared once, here, with its name, type,
 * default, accepted values and documentation line, grouped by the part of the engine it sets.
 * Everything else derives from it: the keys {@link ConfigReader} accepts and parses, the
 * validation in the records of {@link EngineConfig} and {@link LimitsConfig}, the start-up line
 * ({@link EngineConfig#describe()}), and the tests that hold docs/configuration.md and
 * docs/errors.md to it.
 *
 * <p>Rules that involve two keys (a heartbeat shorter than the lease, a rate limit's shards at
 * most its burst…) are checked by the record holding both, naming its key from here.
 *
 * <p>To add a key: declare it in its group below, give it a place in the record of its group
 * (and in {@link EngineConfig.Builder#build()} when it is a new record), and a row in
 * docs/configuration.md whose Meaning starts with the documentation line.
 */
public final class ConfigKeys {
    private static final List<ConfigKey<?, ?>> ALL = new ArrayList<>();

    /** {@code flushers[i].…}: the group-commit flushers, numbered from 0. */
    public static final Family FLUSHERS = new Family("flushers[%s]", "i", "flushers\\[(\\d+)]");
    /** {@code rate-limits.<name>.…}: the token-bucket rate limits. */
    public static final Family RATE_LIMITS = new Family("rate-limits.%s", "<name>", "rate-limits\\.([^.]+)");
    /** {@code concurrency-limits.<name>.…}: the concurrency gates. */
    public static final Family CONCURRENCY_LIMITS = new Family("concurrency-limits.%s", "<name>", "concurrency-limits\\.([^.]+)");

    // Accepted values shared by several keys.

    /** At least 1 ms: the loops schedule in milliseconds, where less is 0 (a hot poll, or a fixed delay the executor refuses at start-up, after the migration already ran). */
    private static final Check<Duration> POSITIVE = Check.that(d -> d.toMillis() >= 1, "a positive duration of at least 1 ms");
    private static final Check<Duration> ZERO_OR_MORE = Check.that(d -> !d.isNegative(), "a duration of zero or more");

    /** The value of {@link #PREFETCH} and {@link #MIN_DEMAND} that sizes them from each queue's concurrency. */
    public static final int AUTO = -1;

    private static Check<Integer> autoOrAtLeast(int min) {
        return Check.that(i -> i == AUTO || i >= min, "-1 (auto, the default) or an integer of " + min + " or more");
    }

    private static Check<Integer> atLeast(int min) {
        return Check.that(i -> i >= min, "an integer of " + min + " or more");
    }

    // ---- node and queues

    /** This node's identity. */
    public static final ConfigKey<EngineConfig, String> NODE_ID = declare(new ConfigKey<>(null, "node-id", ValueType.TEXT,
            ConfigKeys::defaultNodeId, Check.that(v -> !v.isBlank() && v.length() <= 100, "a non-blank name of at most 100 characters"),
            c -> c.node().id(), "This node's identity, the prefix of its worker ids in `locked_by`."));
    /** The queues this node runs, with their concurrency. */
    public static final ConfigKey<EngineConfig, Map<String, Integer>> QUEUES = engine("queues", ValueType.QUEUES,
            Map.of("default", 10), ConfigKeys::checkQueues, c -> c.node().queues(),
            "The queues this node runs, and how many steps of each run at once on this node.");

    // ---- lease and heartbeat

    /** How long a claim is trusted. */
    public static final ConfigKey<EngineConfig, Duration> LEASE_TTL = engine("lease-ttl", ValueType.DURATION,
            Duration.ofSeconds(60), POSITIVE, c -> c.lease().ttl(), "How long a claim is trusted without a heartbeat.");
    /** How often leases are extended; shorter than {@link #LEASE_TTL}. */
    public static final ConfigKey<EngineConfig, Duration> HEARTBEAT_INTERVAL = engine("heartbeat-interval", ValueType.DURATION,
            Duration.ofSeconds(20), POSITIVE, c -> c.lease().heartbeatInterval(),
            "How often a node extends the leases of the rows it holds.");

    // ---- step timeouts

    /** The step timeout of FSMs that set none; zero: none. */
    public static final ConfigKey<EngineConfig, Duration> STEP_TIMEOUT = engine("step-timeout", ValueType.DURATION,
            Duration.ZERO, Check.that(d -> d.isZero() || d.toMillis() >= 1, "0 (no timeout, the default) or a duration of at least 1 ms"),
            c -> c.steps().timeout(),
            "The longest a step may run when neither its insert, its FSM's `stepTimeout(step)` nor `@DurableFsm(stepTimeout)` sets one: past it, its thread is interrupted and the step ends as a `StepTimeoutException` handed to `onError` (by default a retry with backoff, failed at `maxAttempts`). 0 (the default): no timeout.");
    /** How long a timed-out step's thread has to return before its claim is no longer heartbeated. */
    public static final ConfigKey<EngineConfig, Duration> STEP_TIMEOUT_GRACE = engine("step-timeout-grace", ValueType.DURATION,
            Duration.ofSeconds(10), POSITIVE, c -> c.steps().timeoutGrace(),
            "How long a timed-out step's thread has to return after its interrupt: past it, the node stops heartbeating its claim (unless its instance holds a concurrency key), the lease lapses and the reaper takes the row back; the thread keeps its slot of the queue until it returns.");

    // ---- polling and claiming

    /** The base idle poll. */
    public static final ConfigKey<EngineConfig, Duration> POLL_INTERVAL = engine("poll-interval", ValueType.DURATION,
            Duration.ofSeconds(1), POSITIVE, c -> c.poll().interval(), "The base interval between claims on a queue with no pokes.");
    /** The idle backoff's ceiling; at least {@link #POLL_INTERVAL}. */
    public static final ConfigKey<EngineConfig, Duration> MAX_POLL_INTERVAL = engine("max-poll-interval", ValueType.DURATION,
            Duration.ofSeconds(5), POSITIVE, c -> c.poll().maxInterval(),
            "The ceiling of the idle backoff: an idle queue doubles its poll interval up to this; a poke resets it.");
    /** Rows claimed beyond the free slots. */
    public static final ConfigKey<EngineConfig, Integer> PREFETCH = engine("prefetch", ValueType.INTEGER, AUTO,
            autoOrAtLeast(0), c -> c.poll().prefetch(),
            "Rows each queue claims beyond its free slots and holds in memory (heartbeated; released on stop). -1 (the default) adapts: it starts at the queue's concurrency, doubles (up to 256, or the concurrency if larger) while short steps drain the buffer before the next claim, and falls back to the concurrency once a row waits in the buffer longer than 100 ms.");
    /** The fewest free slots worth a claim; at most each queue's concurrency plus {@link #PREFETCH}. */
    public static final ConfigKey<EngineConfig, Integer> MIN_DEMAND = engine("min-demand", ValueType.INTEGER, AUTO,
            autoOrAtLeast(1), c -> c.poll().minDemand(),
            "Skip a claim unless at least this many slots are free. -1 (the default): a quarter of the queue's concurrency plus its prefetch (as it is now, when auto), at least 1.");

    /** Whether a new row may be claimed by its own insert for a free slot of this node. */
    public static final ConfigKey<EngineConfig, Boolean> START_AT_INSERT = engine("start-at-insert", ValueType.BOOLEAN, true,
            Check.any(), c -> c.poll().startAtInsert(),
            "Let an insert claim its own row for a free slot of this node when it can start at once (due now, no concurrency key, rate limit or correlation key, not inside a caller's transaction, the queue served here with nothing buffered): its step starts once the insert commits, one commit instead of two. false: every new row waits for a claim.");

    // ---- drain

    /** How long a stopping node waits for its steps and flushes. */
    public static final ConfigKey<EngineConfig, Duration> DRAIN_TIMEOUT = engine("drain-timeout", ValueType.DURATION,
            Duration.ofSeconds(5), ZERO_OR_MORE, c -> c.drain().timeout(),
            "On stop, how long the node waits for its running steps: one deadline for all its queues, which all stop claiming first.");

    // ---- reaper

    /** Whether the reaper runs here. */
    public static final ConfigKey<EngineConfig, Boolean> REAPER_ENABLED = engine("reaper.enabled", ValueType.BOOLEAN, true,
            Check.any(), c -> c.reaper().enabled(), "Run the reaper on this node: expired leases and await timeouts.");
    /** Time between reaper sweeps. */
    public static final ConfigKey<EngineConfig, Duration> REAPER_INTERVAL = engine("reaper.interval", ValueType.DURATION,
            Duration.ofSeconds(30), POSITIVE, c -> c.reaper().interval(), "Time between reaper sweeps.");
    /** Rows per reaper statement. */
    public static final ConfigKey<EngineConfig, Integer> REAPER_BATCH = engine("reaper.batch", ValueType.INTEGER, 1000,
            atLeast(1), c -> c.reaper().batch(),
            "Rows per reaper statement (expired leases, due await timeouts); a sweep repeats while batches come back full.");

    // ---- gc

    /** Whether the GC runs here. */
    public static final ConfigKey<EngineConfig, Boolean> GC_ENABLED = engine("gc.enabled", ValueType.BOOLEAN, true,
            Check.any(), c -> c.gc().enabled(), "Run the GC on this node.");
    /** Time between GC sweeps. */
    public static final ConfigKey<EngineConfig, Duration> GC_INTERVAL = engine("gc.interval", ValueType.DURATION,
            Duration.ofSeconds(60), POSITIVE, c -> c.gc().interval(), "Time between GC sweeps.");
    /** How long a terminated row is kept. */
    public static final ConfigKey<EngineConfig, Duration> GC_RETENTION = engine("gc.retention", ValueType.DURATION,
            Duration.ofDays(1), ZERO_OR_MORE, c -> c.gc().retention(),
            "How long a `done` row is kept after it finished.");
    /** How long a failed or cancelled row is kept. */
    public static final ConfigKey<EngineConfig, Duration> GC_FAILED_RETENTION = engine("gc.failed-retention", ValueType.DURATION,
            Duration.ofDays(7), ZERO_OR_MORE, c -> c.gc().failedRetention(),
            "How long a `failed` or `cancelled` row is kept after it ended: longer than `done` rows by default, for the operator to inspect and retry it.");
    /** Rows per GC delete. */
    public static final ConfigKey<EngineConfig, Integer> GC_BATCH = engine("gc.batch", ValueType.INTEGER, 10_000, atLeast(1),
            c -> c.gc().batch(), "Rows per GC delete; a sweep repeats while batches come back full.");

    // ---- schema and migration

    /** The schema of the engine's tables: a plain lower-case identifier ({@link SchemaName}). */
    public static final ConfigKey<EngineConfig, String> SCHEMA = engine("schema", ValueType.TEXT, "gendurable",
            (k, m, v) -> new SchemaName(v), c -> c.schema().name(), "The PostgreSQL schema of the engine's tables.");
    /** Whether Flyway runs at start-up. */
    public static final ConfigKey<EngineConfig, Boolean> MIGRATE_AT_START = engine("migrate-at-start", ValueType.BOOLEAN, true,
            Check.any(), c -> c.schema().migrateAtStart(),
            "Run the Flyway migrations at start-up (history table `gendurable_schema_history` in the same schema).");

    // ---- poke

    /** How runnable work is announced: this JVM, or every node. */
    public static final ConfigKey<EngineConfig, PokeTransport> POKE = engine("poke", ValueType.oneOf(PokeTransport.class),
            PokeTransport.LOCAL, Check.that(t -> true, "local, postgres or redis"), c -> c.poke().transport(),
            "How inserts and engine-driven wakes reach idle schedulers: `local`, only this JVM's; `postgres`, every node's, over `LISTEN/NOTIFY`; `redis`, every node's, over Redis Pub/Sub (`gendurable.redis.url`; needs `io.lettuce:lettuce-core`).");
    /** The longest {@link #POKE_WINDOW}: beyond it, pokes would lag the default poll. */
    public static final Duration MAX_POKE_WINDOW = Duration.ofSeconds(1);
    private static final Duration DEFAULT_POKE_WINDOW = Duration.ofMillis(50);
    /** The coalescing window of postgres pokes (see gen-durable-bench/results/LOG.md, "The poke window", for the measurements behind its default). */
    public static final ConfigKey<EngineConfig, Duration> POKE_WINDOW = engine("poke.window", ValueType.DURATION,
            DEFAULT_POKE_WINDOW, Check.that(w -> !w.isNegative() && w.compareTo(MAX_POKE_WINDOW) <= 0,
                    "a duration from 0 to " + MAX_POKE_WINDOW + " (default " + DEFAULT_POKE_WINDOW + ")"),
            c -> c.poke().window(),
            "With `poke=postgres`, the shortest time between two notifications of this node: the first poke after a quiet window is sent at once, pokes within the window go out together when it ends. With `poke=redis`, the fleet-wide window: at most one broadcast per queue per window, whichever node sends it.");

    private static final Duration DEFAULT_POKE_PROBE = Duration.ofSeconds(10);
    /** How often the poke listener proves its connection alive. */
    public static final ConfigKey<EngineConfig, Duration> POKE_PROBE_INTERVAL = engine("poke.probe-interval",
            ValueType.DURATION, DEFAULT_POKE_PROBE, Check.that(d -> d.compareTo(Duration.ofMillis(100)) >= 0,
                    "a duration of at least 100 ms (default " + DEFAULT_POKE_PROBE + ")"),
            c -> c.poke().probeInterval(),
            "With `poke=postgres`, how often the listener runs a probe on its connection, each under a network timeout of the same length: a connection cut without the client seeing it close (a firewall or NAT dropping an idle connection, a failover) is found within twice this, then the listener reconnects and pokes every local queue. With `poke=redis`, how often the subscription is PINGed (under `gendurable.redis.timeout`); a PING that fails makes it subscribe again on a fresh connection.");

    // ---- limiter and Redis

    /** Where the configured gates and rate limits are admitted. */
    public static final ConfigKey<EngineConfig, LimiterBackend> LIMITER = engine("limiter", ValueType.oneOf(LimiterBackend.class),
            LimiterBackend.POSTGRES, Check.that(t -> true, "postgres or redis"), EngineConfig::limiter,
            "Where configured gates and rate limits are admitted: `postgres`, the sharded counters of `gen_durable_buckets`; `redis`, lease-scored sorted sets and token buckets in the Redis at `gendurable.redis.url` (single-node Redis; needs `io.lettuce:lettuce-core`). K = 1 keys stay in PostgreSQL either way.");
    /** The Redis of {@code limiter=redis} and {@code poke=redis}. */
    public static final ConfigKey<EngineConfig, String> REDIS_URL = engine("redis.url", ValueType.URL,
            "redis://127.0.0.1:6379", Check.that(u -> u.startsWith("redis://") || u.startsWith("rediss://"),
                    "a redis:// or rediss:// URL (redis://[user:password@]host[:port][/database])"),
            c -> c.redis().url(),
            "The Redis used by `limiter=redis` and `poke=redis` (one single-node server or primary; not Redis Cluster). Keys are prefixed with `gendurable:<schema>:`.");
    /** How long a Redis command may take. */
    public static final ConfigKey<EngineConfig, Duration> REDIS_TIMEOUT = engine("redis.timeout", ValueType.DURATION,
            Duration.ofSeconds(2), POSITIVE, c -> c.redis().timeout(),
            "How long one Redis command may take; an admission that times out admits nothing (the claimed rows go back).");

    // ---- await

    /** How often the await bridge probes other nodes' commits. */
    public static final ConfigKey<EngineConfig, Duration> AWAIT_TICK = engine("await.tick", ValueType.DURATION,
            Duration.ofMillis(25), POSITIVE, c -> c.await().tick(),
            "While callers on this node wait in `await`, how often one query checks their instances for results committed on other nodes.");

    // ---- step history

    /** Whether every FSM's committed steps are recorded. */
    public static final ConfigKey<EngineConfig, Boolean> HISTORY_ENABLED = engine("history.enabled", ValueType.BOOLEAN, false,
            Check.any(), c -> c.history().enabled(),
            "Record each committed step of every FSM in the step history (one batched insert per flush); `@DurableFsm(history = true)` turns it on for one FSM.");
    /** Whether a history record keeps the state its step committed. */
    public static final ConfigKey<EngineConfig, Boolean> HISTORY_INCLUDE_STATE = engine("history.include-state", ValueType.BOOLEAN,
            false, Check.any(), c -> c.history().includeState(),
            "Keep the state each recorded step committed in its history record (more bytes per step).");
    /** How long a history record is kept. */
    public static final ConfigKey<EngineConfig, Duration> HISTORY_RETENTION = engine("history.retention", ValueType.DURATION,
            Duration.ofDays(7), ZERO_OR_MORE, c -> c.history().retention(),
            "How long a step history record is kept after its step finished; the GC deletes older ones, whatever became of the instance.");
    // ---- schedules

    /** Whether this node fires recurring schedules. */
    public static final ConfigKey<EngineConfig, Boolean> SCHEDULES_ENABLED = engine("schedules.enabled", ValueType.BOOLEAN, true,
            Check.any(), c -> c.schedules().enabled(),
            "Fire the recurring schedules (`@DurableSchedule`, `defineSchedule`) of the FSMs registered on this node; a fire time is taken by one node whatever the number of nodes.");
    /** How often the due schedules are looked for. */
    public static final ConfigKey<EngineConfig, Duration> SCHEDULES_INTERVAL = engine("schedules.interval", ValueType.DURATION,
            Duration.ofSeconds(1), POSITIVE, c -> c.schedules().interval(),
            "How often this node looks for due schedules (one indexed query); an instance is inserted at most this long after its fire time.");
    /** How late a fire time may be and still fire under the skip policy. */
    public static final ConfigKey<EngineConfig, Duration> SCHEDULES_MISFIRE_THRESHOLD = engine("schedules.misfire-threshold",
            ValueType.DURATION, Duration.ofMinutes(1), POSITIVE, c -> c.schedules().misfireThreshold(),
            "A fire time found due later than this is missed: `MisfirePolicy.SKIP` drops it, `CATCH_UP` still inserts it (at most `maxCatchUp`).");

    // ---- gauges

    /** Whether this node runs the queue gauges' query. */
    public static final ConfigKey<EngineConfig, Boolean> GAUGES_ENABLED = engine("gauges.enabled", ValueType.BOOLEAN, true,
            Check.any(), c -> c.gauges().enabled(),
            "Run the queue gauges' query on this node: the cluster-wide count of rows per queue and status, and each queue's oldest due row.");
    /** Time between two runs of the gauges' query. */
    public static final ConfigKey<EngineConfig, Duration> GAUGES_INTERVAL = engine("gauges.interval", ValueType.DURATION,
            Duration.ofSeconds(15), POSITIVE, c -> c.gauges().interval(),
            "Time between two runs of the gauges' query; the gauges show the figures of the last run.");

    // ---- node beacons

    /** Time between two beacons of this node. */
    public static final ConfigKey<EngineConfig, Duration> NODES_BEACON_INTERVAL = engine("nodes.beacon-interval",
            ValueType.DURATION, Duration.ofSeconds(10), POSITIVE, c -> c.nodes().beaconInterval(),
            "Time between two beacons of this node: one upsert of its row in `gen_durable_nodes` (its FSMs, queues, limits, steps in flight, outcomes per minute and step durations). A node whose beacon is older than three intervals is not live.");
    /** How long the row of a node not heard from is kept. */
    public static final ConfigKey<EngineConfig, Duration> NODES_RETENTION = engine("nodes.retention", ValueType.DURATION,
            Duration.ofHours(1), POSITIVE, c -> c.nodes().retention(),
            "How long the row of a node that stopped writing beacons (without a clean stop) is kept; every beacon deletes older ones. At least three beacon intervals.");

    // ---- health

    /** The longest {@link #HEALTH_TIMEOUT}. */
    public static final Duration MAX_HEALTH_TIMEOUT = Duration.ofSeconds(60);
    /** How long readiness waits for the database. */
    public static final ConfigKey<EngineConfig, Duration> HEALTH_TIMEOUT = engine("health.timeout", ValueType.DURATION,
            Duration.ofSeconds(2), Check.that(d -> d.toMillis() >= 1 && d.compareTo(MAX_HEALTH_TIMEOUT) <= 0,
                    "a duration from 1 ms to " + MAX_HEALTH_TIMEOUT),
            c -> c.health().timeout(),
            "How long the readiness check waits for the engine's database to answer its probe before it reports DOWN.");
    /** The slack liveness allows a background loop beyond three of its intervals. */
    public static final ConfigKey<EngineConfig, Duration> HEALTH_STALL_GRACE = engine("health.stall-grace", ValueType.DURATION,
            Duration.ofSeconds(60), ZERO_OR_MORE, c -> c.health().stallGrace(),
            "The liveness check reports a background loop stalled when its last iteration began longer ago than three of its intervals plus this.");

    // ---- values

    /** The largest {@link #MAX_VALUE_BYTES}: 64 MiB (a jsonb value stops at 255 MiB, a claim batch far earlier). */
    public static final int MAX_VALUE_BYTES_CEILING = 64 << 20;
    private static final int DEFAULT_MAX_VALUE_BYTES = 1 << 20;
    /** The largest JSON value accepted, in UTF-8 bytes (default 1 MiB). */
    public static final ConfigKey<EngineConfig, Integer> MAX_VALUE_BYTES = engine("max-value-bytes", ValueType.INTEGER,
            DEFAULT_MAX_VALUE_BYTES, Check.that(b -> b >= 1024 && b <= MAX_VALUE_BYTES_CEILING,
                    "an integer from 1024 to " + MAX_VALUE_BYTES_CEILING + " (bytes; default " + DEFAULT_MAX_VALUE_BYTES + ")"),
            c -> c.values().maxBytes(),
            "The largest JSON value accepted, in UTF-8 bytes: an inserted state, a signal payload, and every state or result a step returns (one over it goes to `onError`).");

    // ---- flushers[i]

    /** The queues a flusher serves, or {@code *}. */
    public static final ConfigKey<FlusherConfig, List<String>> FLUSHER_QUEUES = member(FLUSHERS, "queues", ValueType.LIST,
            List.of("*"), Check.that(l -> !l.isEmpty(), "a comma-separated list of queues, or *"), FlusherConfig::queues,
            "The queues whose outcomes flusher `i` commits.");
    /** Open a flush at once when this many outcomes wait (when, not how large: a flush takes all that wait). */
    public static final ConfigKey<FlusherConfig, Integer> FLUSHER_MAX_BATCH = member(FLUSHERS, "max-batch", ValueType.INTEGER,
            256, atLeast(1), FlusherConfig::maxBatch,
            "Open a flush at once when this many outcomes wait. Fewer wait for the adaptive moment (`max-delay` 0: the open flush has aged) or for `max-delay`; a flush always takes everything waiting, so this is when a flush starts, not how large it is.");
    /** …or this long after the first. */
    public static final ConfigKey<FlusherConfig, Duration> FLUSHER_MAX_DELAY = member(FLUSHERS, "max-delay", ValueType.DURATION,
            Duration.ZERO, ZERO_OR_MORE, FlusherConfig::maxDelay,
            "…or this long after the first one arrived. 0 (the default) adapts to the load: an outcome that finds a flush slot free is written at once, and those that arrive while every slot commits form the next batch.");
    /** Flush transactions open at once. */
    public static final ConfigKey<FlusherConfig, Integer> FLUSHER_PARALLELISM = member(FLUSHERS, "parallelism", ValueType.INTEGER,
            2, Check.that(p -> p >= 1 && p <= 16, "an integer from 1 to 16"), FlusherConfig::parallelism,
            "How many of flusher `i`'s transactions may be open at once. With `max-delay` 0 a flush opens at once when none is open, and a further one only once the newest open flush has run twice the recent mean flush time (at least 1 ms): under load the outcomes that arrive meanwhile go together right after it, and a slow flush does not hold the next one back for long. With a positive `max-delay`, outcomes that arrive while one commits start the next after that delay.");

    // ---- rate-limits.<name>

    /** Tokens per period; required. */
    public static final ConfigKey<RateLimit, Double> RATE_ALLOWED = member(RATE_LIMITS, "allowed", ValueType.NUMBER, null,
            Check.that(a -> a > 0, "a positive number of starts per period"), RateLimit::allowed,
            "The tokens rate limit `<name>` gains per `period`: how many steps of weight 1 it starts per period.");
    /** The period of {@link #RATE_ALLOWED}. */
    public static final ConfigKey<RateLimit, Duration> RATE_PERIOD = member(RATE_LIMITS, "period", ValueType.DURATION,
            Duration.ofSeconds(1), Check.that(p -> p.toMillis() >= 1, "a duration of at least 1 ms"), RateLimit::period,
            "The period of `allowed`.");
    /** The bucket's capacity; by default {@link #RATE_ALLOWED}, at least 1 (so no literal default here). */
    public static final ConfigKey<RateLimit, Double> RATE_BURST = member(RATE_LIMITS, "burst", ValueType.NUMBER, null,
            Check.that(b -> b >= 1, "a number of 1 or more (default: allowed, at least 1)"), RateLimit::burst,
            "The bucket's capacity: the most tokens taken at once after an idle spell.");
    /** Counter rows per bucket key; from 1 to the burst (checked by {@link RateLimit}). */
    public static final ConfigKey<RateLimit, Integer> RATE_SHARDS = member(RATE_LIMITS, "shards", ValueType.INTEGER, 1,
            Check.any(), RateLimit::shards, "Counter rows per bucket key; concurrent pickers lock disjoint shards.");

    // ---- concurrency-limits.<name>

    /** At most this many at once per key; required. */
    public static final ConfigKey<Gate, Integer> GATE_LIMIT = member(CONCURRENCY_LIMITS, "limit", ValueType.INTEGER, null,
            atLeast(1), Gate::limit,
            "Makes `<name>` a gate: at most this many steps at once per concurrency key named `<name>` (`<name>` or `<name>:…`), cluster-wide.");
    /** Slot-counter rows per key; from 1 to the limit (checked by {@link Gate}). */
    public static final ConfigKey<Gate, Integer> GATE_SHARDS = member(CONCURRENCY_LIMITS, "shards", ValueType.INTEGER, 1,
            Check.any(), Gate::shards, "Slot-counter rows per key; the limit is divided among them.");

    // ---- the container layer (impl.cdi): data sources and executors

    /** The JNDI name of the engine's own DataSource. */
    public static final ConfigKey<Void, String> DATASOURCE = container("datasource", "jdbc/gendurable",
            "The engine's own DataSource, looked up when no `@GenDurableDataSource` bean exists.");
    /** The JNDI name of the transactional DataSource that joins the caller's JTA transaction. */
    public static final ConfigKey<Void, String> JTA_DATASOURCE = container("jta-datasource", "jdbc/gendurableTx",
            "A **transactional** DataSource on the same database, through which `insert`, `insertAll` and `signal` join the caller's JTA transaction when one is active.");
    /** A JDBC URL for the engine's own pool, the last resort. */
    public static final ConfigKey<Void, String> JDBC_URL = container("jdbc.url", null,
            "Used only when neither a `@GenDurableDataSource` bean nor the JNDI name is found: the engine builds a HikariCP pool.");
    /** The user of that pool. */
    public static final ConfigKey<Void, String> JDBC_USER = container("jdbc.user", null, "The user of that pool.");
    /** The password of that pool; never logged. */
    public static final ConfigKey<Void, String> JDBC_PASSWORD = container("jdbc.password", null, "The password of that pool.");
    /** The JNDI name of a DataSource that keeps its sessions, for the migrations and the poke's listener. */
    public static final ConfigKey<Void, String> SESSION_DATASOURCE = container("session.datasource", null,
            "A DataSource on the same database whose connections keep their session (direct, or a session-mode pooler), for what needs one: the Flyway migrations and the `postgres` poke's `LISTEN` connection. Set it when the engine's DataSource goes through a transaction-mode pooler such as PgBouncer.");
    /** A JDBC URL for a small pool of session connections, instead of {@link #SESSION_DATASOURCE}. */
    public static final ConfigKey<Void, String> SESSION_JDBC_URL = container("session.jdbc.url", null,
            "Instead of `session.datasource`: a JDBC URL (direct, or a session-mode pooler) for a HikariCP pool of 3 connections of the engine's own, with `gendurable.jdbc.user` and `.password`.");
    /** The JNDI name of a managed executor that runs steps, instead of the engine's own pool. */
    public static final ConfigKey<Void, String> EXECUTOR = container("executor", null,
            "Unset: steps run on a pool of the engine's own, of threads from `gendurable.thread-factory`, which the server's HTTP requests do not share. A JNDI name: the managed executor that runs the steps instead (in Open Liberty it shares the server's one pool with every request; give it a `concurrencyPolicy`).");
    /** The JNDI name of a managed scheduled executor, instead of the engine's own pool. */
    public static final ConfigKey<Void, String> SCHEDULED_EXECUTOR = container("scheduled-executor", null,
            "Unset: claims, flushes, heartbeats and sweeps run on a pool of the engine's own, of threads from `gendurable.thread-factory`. A JNDI name: the managed scheduled executor that runs them instead.");
    /** The JNDI name of the managed thread factory of the engine's own threads. */
    public static final ConfigKey<Void, String> THREAD_FACTORY = container("thread-factory",
            "java:comp/DefaultManagedThreadFactory",
            "The managed thread factory that makes the engine's own threads (its step and timer pools, the readiness probe's thread, the engine events' dispatcher), which carry the application's context; outside a container, or when the default is not found, plain daemon threads.");

    /** The values of {@link #METRICS_BACKEND}, in the order {@code auto} tries them. */
    public static final List<String> METRICS_BACKENDS = List.of("microprofile", "micrometer", "opentelemetry");
    /** What {@link #METRICS_BACKEND} accepts, for its messages. */
    public static final String METRICS_BACKEND_ACCEPTED = "auto (the default), none, or one or more of microprofile, "
            + "micrometer, opentelemetry separated by commas, each once";
    /** Where the engine's metrics go: the first backend the application has, none, or the ones listed. */
    public static final ConfigKey<Void, List<String>> METRICS_BACKEND = declare(new ConfigKey<>(null, "metrics.backend",
            ValueType.LIST, () -> List.of("auto"), Check.that(ConfigKeys::metricsBackendAccepted, METRICS_BACKEND_ACCEPTED),
            null, "Where the engine's metrics go: `auto`, the first the application has of MicroProfile Metrics, Micrometer "
                    + "and OpenTelemetry (MicroProfile Telemetry); `none`; or the backends listed (`microprofile`, "
                    + "`micrometer`, `opentelemetry`), each of which must be there."));

    private static boolean metricsBackendAccepted(List<String> given) {
        List<String> values = given.stream().map(v -> v.toLowerCase(java.util.Locale.ROOT)).toList();
        if (values.size() == 1 && (values.get(0).equals("auto") || values.get(0).equals("none"))) {
            return true;
        }
        return !values.isEmpty() && METRICS_BACKENDS.containsAll(values) && Set.copyOf(values).size() == values.size();
    }

    /** The named engines beside the default one; each reads its keys under {@code engines.<name>.}. */
    public static final ConfigKey<Void, List<String>> ENGINES = declare(new ConfigKey<>(null, "engines", ValueType.LIST,
            () -> List.of(), Check.any(), null,
            "Named engines beside the default one, comma-separated (`billing,reports`): each reads every other key of this table under `gendurable.engines.<name>.` (its own schema, DataSource, queues, limits) and runs the FSMs whose `@DurableFsm(engine = …)` names it."));
    /** The prefix, after {@link ConfigKey#PREFIX}, of a named engine's keys. */
    public static final String ENGINE_NAMESPACE = "engines.";

    // ---- views, derived from the declarations above (initialised after them)

    private static final List<ConfigKey<?, ?>> KEYS = Collections.unmodifiableList(ALL);
    private static final List<Family> FAMILIES = List.of(FLUSHERS, RATE_LIMITS, CONCURRENCY_LIMITS);
    private static final List<ConfigKey<EngineConfig, ?>> ENGINE = engineKeysOf(ALL);
    private static final Set<String> PLAIN = plainNamesOf(ALL);
    private static final Map<Family, Pattern> PATTERNS = FAMILIES.stream().collect(Collectors.toUnmodifiableMap(f -> f,
            f -> Pattern.compile(f.memberRegex() + "\\.(" + members(f).stream().map(ConfigKey::memberName)
                    .collect(Collectors.joining("|")) + ")")));

    private ConfigKeys() {
    }

    /** @return every key, plain and family members, in declaration order */
    public static List<ConfigKey<?, ?>> all() {
        return KEYS;
    }

    /** @return the plain keys {@link EngineConfig} holds, in declaration order (the order of the start-up line) */
    public static List<ConfigKey<EngineConfig, ?>> engineKeys() {
        return ENGINE;
    }

    /** @return the families of keys */
    public static List<Family> families() {
        return FAMILIES;
    }

    /** @param family a family @return its member keys, in declaration order */
    public static List<ConfigKey<?, ?>> members(Family family) {
        return ALL.stream().filter(k -> k.family() == family).toList();
    }

    /** @return the names of the plain keys, without prefix, sorted */
    public static Set<String> plainNames() {
        return PLAIN;
    }

    /**
     * @param family a family
     * @return the pattern of its keys without prefix: the member in group 1, the member key's name in group 2
     */
    public static Pattern pattern(Family family) {
        return PATTERNS.get(family);
    }

    /** @param name a key without prefix @return whether this release reads it */
    public static boolean isKnown(String name) {
        if (name.startsWith(ENGINE_NAMESPACE)) {
            int dot = name.indexOf('.', ENGINE_NAMESPACE.length());
            String key = dot < 0 ? "" : name.substring(dot + 1);
            return !key.startsWith(ENGINE_NAMESPACE) && !key.equals(ENGINES.name()) && isKnown(key);  // engines.<name>.<key>
        }
        return PLAIN.contains(name) || FAMILIES.stream().anyMatch(f -> PATTERNS.get(f).matcher(name).matches());
    }

    /** @return every accepted key, for the message that refuses an unknown one */
    static String accepted() {
        List<String> families = FAMILIES.stream().map(f -> f.template() + "." + members(f).stream()
                .map(ConfigKey::memberName).collect(Collectors.joining("|"))).toList();
        return PLAIN + ", " + String.join(", ", families.subList(0, families.size() - 1)) + " and "
                + families.get(families.size() - 1) + " (all prefixed " + ConfigKey.PREFIX + ")";
    }

    /** @return the host name, the default node id */
    public static String defaultNodeId() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                host = "node";
            }
        }
        return host.length() > 100 ? host.substring(0, 100) : host;
    }

    private static void checkQueues(ConfigKey<?, Map<String, Integer>> key, String member, Map<String, Integer> queues) {
        Objects.requireNonNull(queues, "queues");
        queues.forEach((q, c) -> {
            if (q.isBlank()) {
                throw new ConfigException(key.key(), "", "name:concurrency pairs with non-blank names");
            }
            if (c == null || c < 1) {
                throw new ConfigException(key.key(), q + ":" + c, "a concurrency of 1 or more per queue");
            }
        });
    }

    @SuppressWarnings("unchecked")
    private static List<ConfigKey<EngineConfig, ?>> engineKeysOf(List<ConfigKey<?, ?>> keys) {
        List<ConfigKey<EngineConfig, ?>> out = new ArrayList<>();
        for (ConfigKey<?, ?> k : keys) {
            if (k.family() == null && k.held()) {
                out.add((ConfigKey<EngineConfig, ?>) k);  // the plain keys with a getter are declared by engine(…)
            }
        }
        return List.copyOf(out);
    }

    private static Set<String> plainNamesOf(List<ConfigKey<?, ?>> keys) {
        Set<String> names = new TreeSet<>();
        keys.stream().filter(k -> k.family() == null).forEach(k -> names.add(k.name()));
        return Collections.unmodifiableSet(names);
    }

    private static <K extends ConfigKey<?, ?>> K declare(K key) {
        ALL.add(key);
        return key;
    }

    private static <T> ConfigKey<EngineConfig, T> engine(String name, ValueType<T> type, T defaultValue, Check<T> check,
                                                         Function<EngineConfig, T> getter, String doc) {
        return declare(new ConfigKey<>(null, name, type, () -> defaultValue, check, getter, doc));
    }

    private static <O, T> ConfigKey<O, T> member(Family family, String name, ValueType<T> type, T defaultValue, Check<T> check,
                                                 Function<O, T> getter, String doc) {
        return declare(new ConfigKey<>(family, name, type, () -> defaultValue, check, getter, doc));
    }

    private static ConfigKey<Void, String> container(String name, String defaultValue, String doc) {
        return declare(new ConfigKey<>(null, name, ValueType.TEXT, () -> defaultValue, Check.any(), null, doc));
    }
}
