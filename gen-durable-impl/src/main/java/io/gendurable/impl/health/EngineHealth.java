package io.gendurable.impl.health;

import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.gauges.QueueGauges;
import io.gendurable.impl.runtime.LoopTicks;
import java.util.Locale;
import org.flywaydb.core.api.MigrationVersion;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The engine's health, in plain Java ({@code impl.cdi} publishes it as MicroProfile Health).
 * <ul>
 *   <li><b>Readiness</b>: the engine has started (and not stopped), its database answers a probe
 *       within {@code health.timeout}, and the schema is at the version this code expects
 *       ({@link Migrations#EXPECTED_VERSION}, read from Flyway's history table), or one version
 *       ahead when that migration is expand-only ({@link Migrations#compatibleAhead}: a rolling
 *       upgrade, the newer nodes migrated first). The probe runs on
 *       a thread of its own (never queued behind steps) with the connection's network timeout set to
 *       {@code health.timeout}, and the caller waits for it at most that long, so a dead socket or
 *       an exhausted pool answers DOWN in time instead of hanging the check. At most one probe is
 *       in flight: while one still waits for the database, checks answer DOWN at once.</li>
 *   <li><b>Liveness</b>: every background loop this node runs has begun an iteration within three
 *       of its intervals plus {@code health.stall-grace} (from {@link LoopTicks}). A loop whose
 *       iterations fail (the database is down) still begins them, so a database outage makes a
 *       node unready, not dead.</li>
 * </ul>
 */
public final class EngineHealth {
    private static final System.Logger LOG = System.getLogger("io.gendurable.health");
    /** The loop names below are those the components give {@code Loops.guarded}; {@code HealthTest} checks each ticks. */
    static final String REAPER = "reaper";
    static final String GC = "gc";
    static final String AWAIT_WATCHER = "await watcher";
    static final String HEARTBEAT_PREFIX = "heartbeat of queue ";

    private final EngineConfig config;
    private final DataSource dataSource;
    private final SchemaName schema;
    private final HealthSql sql;
    private final Executor probes;
    private final LoopTicks ticks;
    private final Supplier<Lifecycle> lifecycle;
    private final Map<String, Duration> loops = new LinkedHashMap<>();
    private final Object probeLock = new Object();
    private CompletableFuture<Check> inFlight;
    private long inFlightSince;

    /**
     * Where the engine is in its life. @param started {@code start()} has completed
     * @param stopped {@code stop()} has begun
     * @param startedAt when it started ({@link System#nanoTime()}), 0 before
     */
    public record Lifecycle(boolean started, boolean stopped, long startedAt) {
    }

    /**
     * One check's verdict.
     *
     * @param name the check ({@code gendurable}, {@code gendurable-loops})
     * @param up   whether it is UP
     * @param data what it found, for the health endpoint's {@code data}
     */
    public record Check(String name, boolean up, Map<String, String> data) {
        /** Copies the data. */
        public Check {
            data = Collections.unmodifiableMap(new LinkedHashMap<>(data));
        }
    }

    /**
     * @param config     the configuration ({@code health.*}, the loops this node runs and their intervals)
     * @param dataSource the engine's DataSource
     * @param schema     the engine's schema
     * @param probes     runs the database probe (a thread of its own, never queued behind steps)
     * @param ticks      the loops' ticks
     * @param lifecycle  the engine's state, read at each check
     */
    public EngineHealth(EngineConfig config, DataSource dataSource, SchemaName schema, Executor probes, LoopTicks ticks,
                        Supplier<Lifecycle> lifecycle) {
        this.config = Objects.requireNonNull(config, "config");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.schema = Objects.requireNonNull(schema, "schema");
        this.sql = new HealthSql(schema);
        this.probes = Objects.requireNonNull(probes, "probes");
        this.ticks = Objects.requireNonNull(ticks, "ticks");
        this.lifecycle = Objects.requireNonNull(lifecycle, "lifecycle");
        if (config.reaper().enabled()) {
            loops.put(REAPER, config.reaper().interval());
        }
        if (config.gc().enabled()) {
            loops.put(GC, config.gc().interval());
        }
        loops.put(AWAIT_WATCHER, config.await().tick());
        config.node().queues().keySet().forEach(q -> loops.put(HEARTBEAT_PREFIX + q, config.lease().heartbeatInterval()));
        if (config.gauges().enabled()) {
            loops.put(QueueGauges.LOOP, config.gauges().interval());
        }
    }

    private volatile Supplier<Map<String, String>> poisonedSchedules = Map::of;

    private volatile Supplier<Map<String, String>> maintenanceGaps = Map::of;

    /** @param gaps the cluster-wide loops (reaper, GC) no live node runs → why: in readiness's data, which stays UP */
    public void maintenanceGaps(Supplier<Map<String, String>> gaps) {
        this.maintenanceGaps = Objects.requireNonNull(gaps, "gaps");
    }

    /** @param poisoned the schedules that could not fire at their last attempt on this node → why */
    public void poisonedSchedules(Supplier<Map<String, String>> poisoned) {
        this.poisonedSchedules = Objects.requireNonNull(poisoned, "poisoned");
    }

    private volatile Supplier<Map<String, List<String>>> unservedQueues = Map::of;

    /**
     * @param unserved each queue that registered FSMs default to and this node does not serve →
     *                 those FSMs (readiness data: a signal, not a failure)
     */
    public void unservedQueues(Supplier<Map<String, List<String>>> unserved) {
        this.unservedQueues = Objects.requireNonNull(unserved, "unserved");
    }

    /** @return the loops liveness watches (this node's), with their intervals */
    public Map<String, Duration> watchedLoops() {
        return Collections.unmodifiableMap(loops);
    }

    /** @return readiness: started, the database answering, the schema at the expected version */
    public Check readiness() {
        Lifecycle l = lifecycle.get();
        Map<String, String> data = new LinkedHashMap<>();
        data.put("schema", schema.name());
        // a signal, not a failure: a schedule that cannot fire must not take the node out of service
        poisonedSchedules.get().forEach((name, why) -> data.put("schedule " + name, "cannot fire: " + why));
        maintenanceGaps.get().forEach(data::put);
        // a signal too: an insert-only node serves no queue on purpose; elsewhere it is a missing gendurable.queues entry
        unservedQueues.get().forEach((queue, fsms) -> data.put("unserved queue " + queue, "FSMs " + fsms
                + " default to it; this node does not serve it (gendurable.queues): their instances run only on a node that does"));
        if (l.stopped()) {
            data.put("engine", "stopped");
            return new Check("gendurable", false, data);
        }
        if (!l.started()) {
            data.put("engine", "not started");
            return new Check("gendurable", false, data);
        }
        data.put("engine", "started");
        Check db = probe();
        data.putAll(db.data());
        return new Check("gendurable", db.up(), data);
    }

    /** @return liveness: every background loop of this node began an iteration within its bound */
    public Check liveness() {
        Lifecycle l = lifecycle.get();
        Map<String, String> data = new LinkedHashMap<>();
        if (!l.started() || l.stopped()) {
            data.put("engine", l.stopped() ? "stopped: loops not watched" : "not started: loops not watched");
            return new Check("gendurable-loops", true, data);
        }
        long now = ticks.now();
        boolean up = true;
        for (Map.Entry<String, Duration> e : loops.entrySet()) {
            Duration interval = e.getValue();
            Duration bound = interval.multipliedBy(3).plus(config.health().stallGrace());
            LoopTicks.Snapshot s = ticks.get(e.getKey()).orElse(new LoopTicks.Snapshot(0, 0, 0));
            long since = s.began() != 0 && s.began() - l.startedAt() > 0 ? s.began() : l.startedAt();
            Duration age = Duration.ofNanos(Math.max(0, now - since));
            boolean ok = age.compareTo(bound) <= 0;
            up &= ok;
            StringBuilder text = new StringBuilder(ok ? "ticking" : "STALLED");
            text.append(s.began() == 0 ? ": no iteration yet, started " : ": last began ").append(seconds(age))
                    .append(" ago (limit ").append(seconds(bound)).append(')');
            if (s.failed() != 0 && s.failed() - s.succeeded() > 0) {
                text.append("; its last iteration failed");
            }
            data.put(e.getKey(), text.toString());
        }
        return new Check("gendurable-loops", up, data);
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    private Check probe() {
        CompletableFuture<Check> f;
        long since;
        synchronized (probeLock) {
            if (inFlight == null || inFlight.isDone()) {
                CompletableFuture<Check> next = new CompletableFuture<>();
                try {
                    probes.execute(() -> {
                        try {
                            next.complete(probeNow());
                        } catch (RuntimeException | Error e) {
                            next.complete(down("the probe failed", e));
                        }
                    });
                } catch (RejectedExecutionException e) {
                    return down("the probe could not run: " + e.getMessage());
                }
                inFlight = next;
                inFlightSince = System.nanoTime();
            }
            f = inFlight;
            since = inFlightSince;
        }
        long timeout = config.health().timeout().toNanos();
        long left = timeout - (System.nanoTime() - since);
        try {
            if (left <= 0 && !f.isDone()) {
                return down("no answer for " + seconds(Duration.ofNanos(System.nanoTime() - since))
                        + " (an earlier probe is still waiting for the database)");
            }
            return f.get(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return down("no answer within " + config.health().timeout());
        } catch (ExecutionException e) {
            return down("the probe failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return down("interrupted");
        }
    }

    // the last cause logged, so an outage logs its detail once, not at every check
    private volatile String lastLogged;

    /**
     * DOWN, with a text that names no host, port, user or driver message: readiness data is public
     * ({@code /health/ready} answers anonymous callers). The cause goes to the log, once per change.
     */
    private Check down(String what, Throwable cause) {
        String state = cause instanceof SQLException s && s.getSQLState() != null ? " (SQLState " + s.getSQLState() + ")" : "";
        String detail = String.valueOf(cause);
        if (!detail.equals(lastLogged)) {
            lastLogged = detail;
            LOG.log(System.Logger.Level.WARNING, "gen-durable readiness: " + what + ": " + detail);
        }
        return down(what + ": " + (cause == null ? "unknown" : cause.getClass().getSimpleName()) + state
                + "; the node's log has the detail");
    }

    private static Check down(String why) {
        return new Check("database", false, Map.of("database", "DOWN: " + why));
    }

    /** The probe itself, on the probe executor's thread. */
    private Check probeNow() {
        int millis = (int) Math.min(Integer.MAX_VALUE, config.health().timeout().toMillis());
        try (Connection c = dataSource.getConnection()) {
            Integer saved = null;
            try {
                saved = c.getNetworkTimeout();
                c.setNetworkTimeout(Runnable::run, millis);
            } catch (SQLException | UnsupportedOperationException | AbstractMethodError e) {
                saved = null;  // the wrapper does not support it: the caller's deadline still holds
            }
            try {
                return schemaCheck(c);
            } finally {
                if (saved != null) {
                    try {
                        c.setNetworkTimeout(Runnable::run, saved);
                    } catch (SQLException ignored) {
                        // the connection goes back to its pool, which validates it
                    }
                }
            }
        } catch (SQLException e) {
            return down("the database did not answer", e);
        }
    }

    private Check schemaCheck(Connection c) throws SQLException {
        Map<String, String> data = new LinkedHashMap<>();
        data.put("database", "UP");
        data.put("expected version", Migrations.EXPECTED_VERSION);
        HealthSql.Tables tables = sql.tables(c);
        if (!tables.history()) {
            if (!config.schema().migrateAtStart() && tables.instances()) {
                data.put("schema version", "not checked: no Flyway history (installed by hand, migrate-at-start=false)");
                return new Check("database", true, data);
            }
            data.put("schema version", "none: no table " + schema.qualify(Migrations.HISTORY_TABLE));
            return new Check("database", false, data);
        }
        List<String> failed = new ArrayList<>();
        MigrationVersion current = null;
        String currentDescription = null;
        for (HealthSql.Applied a : sql.applied(c)) {
            if (!a.success()) {
                failed.add(a.version());
                continue;
            }
            MigrationVersion v = MigrationVersion.fromVersion(a.version());
            if (current == null || v.compareTo(current) > 0) {
                current = v;
                currentDescription = a.description();
            }
        }
        data.put("schema version", current == null ? "none" : current.getVersion());
        if (!failed.isEmpty()) {
            data.put("failed migrations", String.join(", ", failed));
            return new Check("database", false, data);
        }
        boolean atVersion = current != null && current.equals(MigrationVersion.fromVersion(Migrations.EXPECTED_VERSION));
        if (!atVersion && current != null && Migrations.compatibleAhead(current.getVersion(), currentDescription)) {
            // a rolling upgrade: a newer node has applied the next migration, which only adds
            data.put("schema ahead", "compatible: version " + current.getVersion() + " is expand-only");
            return new Check("database", true, data);
        }
        return new Check("database", atVersion, data);
    }
}
