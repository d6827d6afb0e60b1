package io.gendurable.impl.config;

import io.gendurable.impl.config.ConfigKey.Check;
import io.gendurable.impl.config.ConfigKey.Family;
import io.gendurable.impl.db.SchemaName;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The catalogue of {@code gendurable.*} keys: each declared once, here, with its name, type,
 * default, accepted values and documentation line, grouped by the part of the engine it sets.
 * Everything else derives from it: the views of {@link ConfigCatalogue} (the keys
 * {@link ConfigReader} accepts and parses), the validation in the records of {@link EngineConfig}
 * and {@link LimitsConfig}, the start-up line ({@link EngineConfig#describe()}), and the tests that
 * hold docs/configuration.md and docs/errors.md to it. A key knows no record: the records read
 * the keys, and {@link EngineConfig} says where each value sits.
 *
 * <p>Rules that involve two keys (a heartbeat shorter than the lease, a rate limit's shards at
 * most its burst…) are checked by the record holding both, naming its key from here.
 *
 * <p>To add a key: declare it in its group below, give it a place in the record of its group
 * (in {@link EngineConfig.Builder#build()} and among EngineConfig's getters), and a row in
 * docs/configuration.md whose Meaning starts with the documentation line.
 */
public final class ConfigKeys {
    private static final List<ConfigKey<?>> ALL = new ArrayList<>();

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
    public static final ConfigKey<String> NODE_ID = declare(new ConfigKey<>(null, "node-id", ValueType.TEXT,
            ConfigKeys::defaultNodeId, Check.that(v -> !v.isBlank() && v.length() <= 100, "a non-blank name of at most 100 characters"),
            true, "This node's identity, the prefix of its worker ids in `locked_by`."));
    /** The queues this node runs, with their concurrency. */
    public static final ConfigKey<Map<String, Integer>> QUEUES = engine("queues", ValueType.QUEUES,
            Map.of("default", 10), ConfigKeys::checkQueues,
            "The queues this node runs, and how many steps of each run at once on this node.");

    // ---- lease and heartbeat

    /** How long a claim is trusted. */
    public static final ConfigKey<Duration> LEASE_TTL = engine("lease-ttl", ValueType.DURATION,
            Duration.ofSeconds(60), POSITIVE, "How long a claim is trusted without a heartbeat.");
    /** How often leases are extended; shorter than {@link #LEASE_TTL}. */
    public static final ConfigKey<Duration> HEARTBEAT_INTERVAL = engine("heartbeat-interval", ValueType.DURATION,
            Duration.ofSeconds(20), POSITIVE,
            "How often a node extends the leases of the rows it holds.");

    // ---- step timeouts

    /** The step timeout of FSMs that set none; zero: none. */
    public static final ConfigKey<Duration> STEP_TIMEOUT = engine("step-timeout", ValueType.DURATION,
            Duration.ZERO, Check.that(d -> d.isZero() || d.toMillis() >= 1, "0 (no timeout, the default) or a duration of at least 1 ms"),
            "The longest a step may run when neither its insert, its FSM's `stepTimeout(step)` nor `@DurableFsm(stepTimeout)` sets one: past it, its thread is interrupted and the step ends as a `StepTimeoutException` handed to `onError` (by default a retry with backoff, failed at `maxAttempts`). 0 (the default): no timeout.");
    /** How long a timed-out step's thread has to return before its claim is no longer heartbeated. */
    public static final ConfigKey<Duration> STEP_TIMEOUT_GRACE = engine("step-timeout-grace", ValueType.DURATION,
            Duration.ofSeconds(10), POSITIVE,
            "How long a timed-out step's thread has to return after its interrupt: past it, the node stops heartbeating its claim (unless its instance holds a concurrency key), the lease lapses and the reaper takes the row back; the thread keeps its slot of the queue until it returns.");

    // ---- polling and claiming

    /** The base idle poll. */
    public static final ConfigKey<Duration> POLL_INTERVAL = engine("poll-interval", ValueType.DURATION,
            Duration.ofSeconds(1), POSITIVE, "The base interval between claims on a queue with no pokes.");
    /** The idle backoff's ceiling; at least {@link #POLL_INTERVAL}. */
    public static final ConfigKey<Duration> MAX_POLL_INTERVAL = engine("max-poll-interval", ValueType.DURATION,
            Duration.ofSeconds(5), POSITIVE,
            "The ceiling of the idle backoff: an idle queue doubles its poll interval up to this; a poke resets it.");
    /** Rows claimed beyond the free slots. */
    public static final ConfigKey<Integer> PREFETCH = engine("prefetch", ValueType.INTEGER, AUTO,
            autoOrAtLeast(0), AutoDemand.PREFETCH_DOC);
    /** The fewest free slots worth a claim; at most each queue's concurrency plus {@link #PREFETCH}. */
    public static final ConfigKey<Integer> MIN_DEMAND = engine("min-demand", ValueType.INTEGER, AUTO,
            autoOrAtLeast(1), AutoDemand.MIN_DEMAND_DOC);

    /** Whether a new row may be claimed by its own insert for a free slot of this node. */
    public static final ConfigKey<Boolean> START_AT_INSERT = engine("start-at-insert", ValueType.BOOLEAN, true,
            Check.any(),
            "Let an insert claim its own row for a free slot of this node when it can start at once (due now, no concurrency key, rate limit or correlation key, not inside a caller's transaction, the queue served here with nothing buffered): its step starts once the insert commits, one commit instead of two. false: every new row waits for a claim.");

    // ---- drain

    /** How long a stopping node waits for its steps and flushes. */
    public static final ConfigKey<Duration> DRAIN_TIMEOUT = engine("drain-timeout", ValueType.DURATION,
            Duration.ofSeconds(5), ZERO_OR_MORE,
            "On stop, how long the node waits for its running steps: one deadline for all its queues, which all stop claiming first.");

    // ---- reaper

    /** Whether the reaper runs here. */
    public static final ConfigKey<Boolean> REAPER_ENABLED = engine("reaper.enabled", ValueType.BOOLEAN, true,
            Check.any(), "Run the reaper on this node: expired leases and await timeouts.");
    /** Time between reaper sweeps. */
    public static final ConfigKey<Duration> REAPER_INTERVAL = engine("reaper.interval", ValueType.DURATION,
            Duration.ofSeconds(30), POSITIVE, "Time between reaper sweeps.");
    /** Rows per reaper statement. */
    public static final ConfigKey<Integer> REAPER_BATCH = engine("reaper.batch", ValueType.INTEGER, 1000,
            atLeast(1),
            "Rows per reaper statement (expired leases, due await timeouts); a sweep repeats while batches come back full.");

    // ---- gc

    /** Whether the GC runs here. */
    public static final ConfigKey<Boolean> GC_ENABLED = engine("gc.enabled", ValueType.BOOLEAN, true,
            Check.any(), "Run the GC on this node.");
    /** Time between GC sweeps. */
    public static final ConfigKey<Duration> GC_INTERVAL = engine("gc.interval", ValueType.DURATION,
            Duration.ofSeconds(60), POSITIVE, "Time between GC sweeps.");
    /** How long a terminated row is kept. */
    public static final ConfigKey<Duration> GC_RETENTION = engine("gc.retention", ValueType.DURATION,
            Duration.ofDays(1), ZERO_OR_MORE,
            "How long a `done` row is kept after it finished.");
    /** How long a failed or cancelled row is kept. */
    public static final ConfigKey<Duration> GC_FAILED_RETENTION = engine("gc.failed-retention", ValueType.DURATION,
            Duration.ofDays(7), ZERO_OR_MORE,
            "How long a `failed` or `cancelled` row is kept after it ended: longer than `done` rows by default, for the operator to inspect and retry it.");
    /** Rows per GC delete. */
    public static final ConfigKey<Integer> GC_BATCH = engine("gc.batch", ValueType.INTEGER, 10_000, atLeast(1), "Rows per GC delete; a sweep repeats while batches come back full.");

    // ---- schema and migration

    /** The schema of the engine's tables: a plain lower-case identifier ({@link SchemaName}). */
    public static final ConfigKey<String> SCHEMA = engine("schema", ValueType.TEXT, "gendurable",
            (k, m, v) -> new SchemaName(v), "The PostgreSQL schema of the engine's tables.");
    /** Whether Flyway runs at start-up. */
    public static final ConfigKey<Boolean> MIGRATE_AT_START = engine("migrate-at-start", ValueType.BOOLEAN, true,
            Check.any(),
            "Run the Flyway migrations at start-up (history table `gendurable_schema_history` in the same schema).");

    // ---- poke

    /** How runnable work is announced: this JVM, or every node. */
    public static final ConfigKey<PokeTransport> POKE = engine("poke", ValueType.oneOf(PokeTransport.class),
            PokeTransport.LOCAL, Check.that(t -> true, "local, postgres or redis"),
            "How inserts and engine-driven wakes reach idle schedulers: `local`, only this JVM's; `postgres`, every node's, over `LISTEN/NOTIFY`; `redis`, every node's, over Redis Pub/Sub (`gendurable.redis.url`; needs `io.lettuce:lettuce-core`).");
    /** The longest {@link #POKE_WINDOW}: beyond it, pokes would lag the default poll. */
    public static final Duration MAX_POKE_WINDOW = Duration.ofSeconds(1);
    private static final Duration DEFAULT_POKE_WINDOW = Duration.ofMillis(50);
    /** The coalescing window of postgres pokes (see gen-durable-bench/results/LOG.md, "The poke window", for the measurements behind its default). */
    public static final ConfigKey<Duration> POKE_WINDOW = engine("poke.window", ValueType.DURATION,
            DEFAULT_POKE_WINDOW, Check.that(w -> !w.isNegative() && w.compareTo(MAX_POKE_WINDOW) <= 0,
                    "a duration from 0 to " + MAX_POKE_WINDOW + " (default " + DEFAULT_POKE_WINDOW + ")"),
            "With `poke=postgres`, the shortest time between two notifications of this node: the first poke after a quiet window is sent at once, pokes within the window go out together when it ends. With `poke=redis`, the fleet-wide window: at most one broadcast per queue per window, whichever node sends it.");

    private static final Duration DEFAULT_POKE_PROBE = Duration.ofSeconds(10);
    /** How often the poke listener proves its connection alive. */
    public static final ConfigKey<Duration> POKE_PROBE_INTERVAL = engine("poke.probe-interval",
            ValueType.DURATION, DEFAULT_POKE_PROBE, Check.that(d -> d.compareTo(Duration.ofMillis(100)) >= 0,
                    "a duration of at least 100 ms (default " + DEFAULT_POKE_PROBE + ")"),
            "With `poke=postgres`, how often the listener runs a probe on its connection, each under a network timeout of the same length: a connection cut without the client seeing it close (a firewall or NAT dropping an idle connection, a failover) is found within twice this, then the listener reconnects and pokes every local queue. With `poke=redis`, how often the subscription is PINGed (under `gendurable.redis.timeout`); a PING that fails makes it subscribe again on a fresh connection.");

    // ---- limiter and Redis

    /** Where the configured gates and rate limits are admitted. */
    public static final ConfigKey<LimiterBackend> LIMITER = engine("limiter", ValueType.oneOf(LimiterBackend.class),
            LimiterBackend.POSTGRES, Check.that(t -> true, "postgres or redis"),
            "Where configured gates and rate limits are admitted: `postgres`, the sharded counters of `gen_durable_buckets`; `redis`, lease-scored sorted sets and token buckets in the Redis at `gendurable.redis.url` (single-node Redis; needs `io.lettuce:lettuce-core`). K = 1 keys stay in PostgreSQL either way.");
    /** The Redis of {@code limiter=redis} and {@code poke=redis}. */
    public static final ConfigKey<String> REDIS_URL = engine("redis.url", ValueType.URL,
            "redis://127.0.0.1:6379", Check.that(u -> u.startsWith("redis://") || u.startsWith("rediss://"),
                    "a redis:// or rediss:// URL (redis://[user:password@]host[:port][/database])"),
            "The Redis used by `limiter=redis` and `poke=redis` (one single-node server or primary; not Redis Cluster). Keys are prefixed with `gendurable:<schema>:`.");
    /** How long a Redis command may take. */
    public static final ConfigKey<Duration> REDIS_TIMEOUT = engine("redis.timeout", ValueType.DURATION,
            Duration.ofSeconds(2), POSITIVE,
            "How long one Redis command may take; an admission that times out admits nothing (the claimed rows go back).");

    // ---- await

    /** How often the await bridge probes other nodes' commits. */
    public static final ConfigKey<Duration> AWAIT_TICK = engine("await.tick", ValueType.DURATION,
            Duration.ofMillis(25), POSITIVE,
            "While callers on this node wait in `await`, how often one query checks their instances for results committed on other nodes.");

    // ---- step history

    /** Whether every FSM's committed steps are recorded. */
    public static final ConfigKey<Boolean> HISTORY_ENABLED = engine("history.enabled", ValueType.BOOLEAN, false,
            Check.any(),
            "Record each committed step of every FSM in the step history (one batched insert per flush); `@DurableFsm(history = true)` turns it on for one FSM.");
    /** Whether a history record keeps the state its step committed. */
    public static final ConfigKey<Boolean> HISTORY_INCLUDE_STATE = engine("history.include-state", ValueType.BOOLEAN,
            false, Check.any(),
            "Keep the state each recorded step committed in its history record (more bytes per step).");
    /** How long a history record is kept. */
    public static final ConfigKey<Duration> HISTORY_RETENTION = engine("history.retention", ValueType.DURATION,
            Duration.ofDays(7), ZERO_OR_MORE,
            "How long a step history record is kept after its step finished; the GC deletes older ones, whatever became of the instance.");
    // ---- schedules

    /** Whether this node fires recurring schedules. */
    public static final ConfigKey<Boolean> SCHEDULES_ENABLED = engine("schedules.enabled", ValueType.BOOLEAN, true,
            Check.any(),
            "Fire the recurring schedules (`@DurableSchedule`, `defineSchedule`) of the FSMs registered on this node; a fire time is taken by one node whatever the number of nodes.");
    /** How often the due schedules are looked for. */
    public static final ConfigKey<Duration> SCHEDULES_INTERVAL = engine("schedules.interval", ValueType.DURATION,
            Duration.ofSeconds(1), POSITIVE,
            "How often this node looks for due schedules (one indexed query); an instance is inserted at most this long after its fire time.");
    /** How late a fire time may be and still fire under the skip policy. */
    public static final ConfigKey<Duration> SCHEDULES_MISFIRE_THRESHOLD = engine("schedules.misfire-threshold",
            ValueType.DURATION, Duration.ofMinutes(1), POSITIVE,
            "A fire time found due later than this is missed: `MisfirePolicy.SKIP` drops it, `CATCH_UP` still inserts it (at most `maxCatchUp`).");

    // ---- gauges

    /** Whether this node runs the queue gauges' query. */
    public static final ConfigKey<Boolean> GAUGES_ENABLED = engine("gauges.enabled", ValueType.BOOLEAN, true,
            Check.any(),
            "Run the queue gauges' query on this node: the cluster-wide count of rows per queue and status, and each queue's oldest due row.");
    /** Time between two runs of the gauges' query. */
    public static final ConfigKey<Duration> GAUGES_INTERVAL = engine("gauges.interval", ValueType.DURATION,
            Duration.ofSeconds(15), POSITIVE,
            "Time between two runs of the gauges' query; the gauges show the figures of the last run.");

    // ---- node beacons

    /** Time between two beacons of this node. */
    public static final ConfigKey<Duration> NODES_BEACON_INTERVAL = engine("nodes.beacon-interval",
            ValueType.DURATION, Duration.ofSeconds(10), POSITIVE,
            "Time between two beacons of this node: one upsert of its row in `gen_durable_nodes` (its FSMs, queues, limits, steps in flight, outcomes per minute and step durations). A node whose beacon is older than three intervals is not live.");
    /** How long the row of a node not heard from is kept. */
    public static final ConfigKey<Duration> NODES_RETENTION = engine("nodes.retention", ValueType.DURATION,
            Duration.ofHours(1), POSITIVE,
            "How long the row of a node that stopped writing beacons (without a clean stop) is kept; every beacon deletes older ones. At least three beacon intervals.");

    // ---- health

    /** The longest {@link #HEALTH_TIMEOUT}. */
    public static final Duration MAX_HEALTH_TIMEOUT = Duration.ofSeconds(60);
    /** How long readiness waits for the database. */
    public static final ConfigKey<Duration> HEALTH_TIMEOUT = engine("health.timeout", ValueType.DURATION,
            Duration.ofSeconds(2), Check.that(d -> d.toMillis() >= 1 && d.compareTo(MAX_HEALTH_TIMEOUT) <= 0,
                    "a duration from 1 ms to " + MAX_HEALTH_TIMEOUT),
            "How long the readiness check waits for the engine's database to answer its probe before it reports DOWN.");
    /** The slack liveness allows a background loop beyond three of its intervals. */
    public static final ConfigKey<Duration> HEALTH_STALL_GRACE = engine("health.stall-grace", ValueType.DURATION,
            Duration.ofSeconds(60), ZERO_OR_MORE,
            "The liveness check reports a background loop stalled when its last iteration began longer ago than three of its intervals plus this.");

    // ---- values

    /** The largest {@link #MAX_VALUE_BYTES}: 64 MiB (a jsonb value stops at 255 MiB, a claim batch far earlier). */
    public static final int MAX_VALUE_BYTES_CEILING = 64 << 20;
    private static final int DEFAULT_MAX_VALUE_BYTES = 1 << 20;
    /** The largest JSON value accepted, in UTF-8 bytes (default 1 MiB). */
    public static final ConfigKey<Integer> MAX_VALUE_BYTES = engine("max-value-bytes", ValueType.INTEGER,
            DEFAULT_MAX_VALUE_BYTES, Check.that(b -> b >= 1024 && b <= MAX_VALUE_BYTES_CEILING,
                    "an integer from 1024 to " + MAX_VALUE_BYTES_CEILING + " (bytes; default " + DEFAULT_MAX_VALUE_BYTES + ")"),
            "The largest JSON value accepted, in UTF-8 bytes: an inserted state, a signal payload, and every state or result a step returns (one over it goes to `onError`).");

    // ---- flushers[i]

    /** The queues a flusher serves, or {@code *}. */
    public static final ConfigKey<List<String>> FLUSHER_QUEUES = member(FLUSHERS, "queues", ValueType.LIST,
            List.of("*"), Check.that(l -> !l.isEmpty(), "a comma-separated list of queues, or *"),
            "The queues whose outcomes flusher `i` commits.");
    /** Open a flush at once when this many outcomes wait (when, not how large: a flush takes all that wait). */
    public static final ConfigKey<Integer> FLUSHER_MAX_BATCH = member(FLUSHERS, "max-batch", ValueType.INTEGER,
            256, atLeast(1),
            "Open a flush at once when this many outcomes wait. Fewer wait for the adaptive moment (`max-delay` 0: the open flush has aged) or for `max-delay`; a flush always takes everything waiting, so this is when a flush starts, not how large it is.");
    /** …or this long after the first. */
    public static final ConfigKey<Duration> FLUSHER_MAX_DELAY = member(FLUSHERS, "max-delay", ValueType.DURATION,
            Duration.ZERO, ZERO_OR_MORE,
            "…or this long after the first one arrived. 0 (the default) adapts to the load: an outcome that finds a flush slot free is written at once, and those that arrive while every slot commits form the next batch.");
    /** Flush transactions open at once. */
    public static final ConfigKey<Integer> FLUSHER_PARALLELISM = member(FLUSHERS, "parallelism", ValueType.INTEGER,
            2, Check.that(p -> p >= 1 && p <= 16, "an integer from 1 to 16"),
            "How many of flusher `i`'s transactions may be open at once. With `max-delay` 0 a flush opens at once when none is open, and a further one only once the newest open flush has run twice the recent mean flush time (at least 1 ms): under load the outcomes that arrive meanwhile go together right after it, and a slow flush does not hold the next one back for long. With a positive `max-delay`, outcomes that arrive while one commits start the next after that delay.");

    // ---- rate-limits.<name>

    /** Tokens per period; required. */
    public static final ConfigKey<Double> RATE_ALLOWED = member(RATE_LIMITS, "allowed", ValueType.NUMBER, null,
            Check.that(a -> a > 0, "a positive number of starts per period"),
            "The tokens rate limit `<name>` gains per `period`: how many steps of weight 1 it starts per period.");
    /** The period of {@link #RATE_ALLOWED}. */
    public static final ConfigKey<Duration> RATE_PERIOD = member(RATE_LIMITS, "period", ValueType.DURATION,
            Duration.ofSeconds(1), Check.that(p -> p.toMillis() >= 1, "a duration of at least 1 ms"),
            "The period of `allowed`.");
    /** The bucket's capacity; by default {@link #RATE_ALLOWED}, at least 1 (so no literal default here). */
    public static final ConfigKey<Double> RATE_BURST = member(RATE_LIMITS, "burst", ValueType.NUMBER, null,
            Check.that(b -> b >= 1, "a number of 1 or more (default: allowed, at least 1)"),
            "The bucket's capacity: the most tokens taken at once after an idle spell.");
    /** Counter rows per bucket key; from 1 to the burst (checked by {@link LimitsConfig.RateLimit}). */
    public static final ConfigKey<Integer> RATE_SHARDS = member(RATE_LIMITS, "shards", ValueType.INTEGER, 1,
            Check.any(), "Counter rows per bucket key; concurrent claims lock disjoint shards.");

    // ---- concurrency-limits.<name>

    /** At most this many at once per key; required. */
    public static final ConfigKey<Integer> GATE_LIMIT = member(CONCURRENCY_LIMITS, "limit", ValueType.INTEGER, null,
            atLeast(1),
            "Makes `<name>` a gate: at most this many steps at once per concurrency key named `<name>` (`<name>` or `<name>:…`), cluster-wide.");
    /** Slot-counter rows per key; from 1 to the limit (checked by {@link LimitsConfig.Gate}). */
    public static final ConfigKey<Integer> GATE_SHARDS = member(CONCURRENCY_LIMITS, "shards", ValueType.INTEGER, 1,
            Check.any(), "Slot-counter rows per key; the limit is divided among them.");

    // ---- the container layer (impl.cdi): data sources and executors

    /** The JNDI name of the engine's own DataSource. */
    public static final ConfigKey<String> DATASOURCE = container("datasource", "jdbc/gendurable",
            "The engine's own DataSource, looked up when no `@GenDurableDataSource` bean exists.");
    /** The JNDI name of the transactional DataSource that joins the caller's JTA transaction. */
    public static final ConfigKey<String> JTA_DATASOURCE = container("jta-datasource", "jdbc/gendurableTx",
            "A **transactional** DataSource on the same database, through which `insert`, `insertAll` and `signal` join the caller's JTA transaction when one is active.");
    /** A JDBC URL for the engine's own pool, the last resort. */
    public static final ConfigKey<String> JDBC_URL = container("jdbc.url", null,
            "Used only when neither a `@GenDurableDataSource` bean nor the JNDI name is found: the engine builds a HikariCP pool.");
    /** The user of that pool. */
    public static final ConfigKey<String> JDBC_USER = container("jdbc.user", null, "The user of that pool.");
    /** The password of that pool; never logged. */
    public static final ConfigKey<String> JDBC_PASSWORD = container("jdbc.password", null, "The password of that pool.");
    /** The JNDI name of a DataSource that keeps its sessions, for the migrations and the poke's listener. */
    public static final ConfigKey<String> SESSION_DATASOURCE = container("session.datasource", null,
            "A DataSource on the same database whose connections keep their session (direct, or a session-mode pooler), for what needs one: the Flyway migrations and the `postgres` poke's `LISTEN` connection. Set it when the engine's DataSource goes through a transaction-mode pooler such as PgBouncer.");
    /** A JDBC URL for a small pool of session connections, instead of {@link #SESSION_DATASOURCE}. */
    public static final ConfigKey<String> SESSION_JDBC_URL = container("session.jdbc.url", null,
            "Instead of `session.datasource`: a JDBC URL (direct, or a session-mode pooler) for a HikariCP pool of 3 connections of the engine's own, with `gendurable.jdbc.user` and `.password`.");
    /** The JNDI name of a managed executor that runs steps, instead of the engine's own pool. */
    public static final ConfigKey<String> EXECUTOR = container("executor", null,
            "Unset: steps run on a pool of the engine's own, of threads from `gendurable.thread-factory`, which the server's HTTP requests do not share. A JNDI name: the managed executor that runs the steps instead (in Open Liberty it shares the server's one pool with every request; give it a `concurrencyPolicy`).");
    /** The JNDI name of a managed scheduled executor, instead of the engine's own pool. */
    public static final ConfigKey<String> SCHEDULED_EXECUTOR = container("scheduled-executor", null,
            "Unset: claims, flushes, heartbeats and sweeps run on a pool of the engine's own, of threads from `gendurable.thread-factory`. A JNDI name: the managed scheduled executor that runs them instead.");
    /** The JNDI name of the managed thread factory of the engine's own threads. */
    public static final ConfigKey<String> THREAD_FACTORY = container("thread-factory",
            "java:comp/DefaultManagedThreadFactory",
            "The managed thread factory that makes the engine's own threads (its step and timer pools, the readiness probe's thread, the engine events' dispatcher), which carry the application's context; outside a container, or when the default is not found, plain daemon threads.");

    /** The values of {@link #METRICS_BACKEND}, in the order {@code auto} tries them. */
    public static final List<String> METRICS_BACKENDS = List.of("microprofile", "micrometer", "opentelemetry");
    /** What {@link #METRICS_BACKEND} accepts, for its messages. */
    public static final String METRICS_BACKEND_ACCEPTED = "auto (the default), none, or one or more of microprofile, "
            + "micrometer, opentelemetry separated by commas, each once";
    /** Where the engine's metrics go: the first backend the application has, none, or the ones listed. */
    public static final ConfigKey<List<String>> METRICS_BACKEND = declare(new ConfigKey<>(null, "metrics.backend",
            ValueType.LIST, () -> List.of("auto"), Check.that(ConfigKeys::metricsBackendAccepted, METRICS_BACKEND_ACCEPTED),
            false, "Where the engine's metrics go: `auto`, the first the application has of MicroProfile Metrics, Micrometer "
                    + "and OpenTelemetry (MicroProfile Telemetry); `none`; or the backends listed (`microprofile`, "
                    + "`micrometer`, `opentelemetry`), each of which must be there."));

    private static boolean metricsBackendAccepted(List<String> given) {
        List<String> values = given.stream().map(v -> v.toLowerCase(Locale.ROOT)).toList();
        if (values.size() == 1 && (values.get(0).equals("auto") || values.get(0).equals("none"))) {
            return true;
        }
        return !values.isEmpty() && METRICS_BACKENDS.containsAll(values) && Set.copyOf(values).size() == values.size();
    }

    /** The named engines beside the default one; each reads its keys under {@code engines.<name>.}. */
    public static final ConfigKey<List<String>> ENGINES = declare(new ConfigKey<>(null, "engines", ValueType.LIST,
            () -> List.of(), Check.any(), false,
            "Named engines beside the default one, comma-separated (`billing,reports`): each reads every other key of this table under `gendurable.engines.<name>.` (its own schema, DataSource, queues, limits) and runs the FSMs whose `@DurableFsm(engine = …)` names it."));
    /** The prefix, after {@link ConfigKey#PREFIX}, of a named engine's keys. */
    public static final String ENGINE_NAMESPACE = "engines.";

    private static final List<ConfigKey<?>> KEYS = Collections.unmodifiableList(ALL);

    private ConfigKeys() {
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

    private static void checkQueues(ConfigKey<Map<String, Integer>> key, String member, Map<String, Integer> queues) {
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

    /** @return every key, in declaration order (read through {@link ConfigCatalogue#all()}) */
    static List<ConfigKey<?>> declared() {
        return KEYS;
    }

    private static <K extends ConfigKey<?>> K declare(K key) {
        ALL.add(key);
        return key;
    }

    private static <T> ConfigKey<T> engine(String name, ValueType<T> type, T defaultValue, Check<T> check, String doc) {
        return declare(new ConfigKey<>(null, name, type, () -> defaultValue, check, true, doc));
    }

    private static <T> ConfigKey<T> member(Family family, String name, ValueType<T> type, T defaultValue, Check<T> check,
                                           String doc) {
        return declare(new ConfigKey<>(family, name, type, () -> defaultValue, check, true, doc));
    }

    private static ConfigKey<String> container(String name, String defaultValue, String doc) {
        return declare(new ConfigKey<>(null, name, ValueType.TEXT, () -> defaultValue, Check.any(), false, doc));
    }
}
