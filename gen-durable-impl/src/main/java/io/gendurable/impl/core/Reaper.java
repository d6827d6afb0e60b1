package io.gendurable.impl.core;

import io.gendurable.impl.sql.Db;
import io.gendurable.impl.sql.LeaseSql;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Returns rows whose lease expired (their worker died or lost the database) to {@code runnable}
 * with {@code attempt + 1}, and pokes their queues; in the same loop, fires due await timeouts. Safe on several nodes at once: the sweep
 * claims with ordered {@code SKIP LOCKED}.
 */
public final class Reaper {
    private static final Logger LOG = System.getLogger("io.gendurable");

    private final EngineConfig.ReaperConfig config;
    private final Db db;
    private final LeaseSql sql;
    private final io.gendurable.impl.sql.AwaitSql awaitSql;
    private final Poke poke;
    private final ScheduledExecutorService timer;
    private final InstantSource clock;
    private final EngineMetrics metrics;
    private ScheduledFuture<?> loop;

    Reaper(EngineConfig.ReaperConfig config, Db db, LeaseSql sql, io.gendurable.impl.sql.AwaitSql awaitSql, Poke poke, ScheduledExecutorService timer,
           InstantSource clock, EngineMetrics metrics) {
        this.config = config;
        this.db = db;
        this.sql = sql;
        this.awaitSql = awaitSql;
        this.poke = poke;
        this.timer = timer;
        this.clock = clock;
        this.metrics = metrics;
    }

    synchronized void start() {
        if (loop == null) {
            long ms = config.interval().toMillis();
            loop = timer.scheduleWithFixedDelay(() -> {
                Loops.guarded("reaper", metrics, this::runOnce);
                Loops.guarded("await-timeout sweep", metrics, this::fireTimeouts);
            }, ms, ms, TimeUnit.MILLISECONDS);
        }
    }

    synchronized void stop() {
        if (loop != null) {
            loop.cancel(false);
            loop = null;
        }
    }

    /** @return how many expired leases were reclaimed (sweeps until a batch comes back short) */
    public int runOnce() {
        int total = 0;
        Set<String> queues = new LinkedHashSet<>();
        while (true) {
            List<LeaseSql.Reaped> reaped = db.inTransaction(c -> sql.reap(c, clock.instant(), config.batch()));
            total += reaped.size();
            reaped.forEach(r -> queues.add(r.queue()));
            if (reaped.size() < config.batch()) {
                break;
            }
        }
        if (total > 0) {
            metrics.reaped.add(total);
            LOG.log(Level.INFO, "gen-durable reaper: " + total + " expired leases returned to runnable");
            queues.forEach(poke::poke);
        }
        return total;
    }

    /**
     * The parallel sweep: parked rows whose await deadline passed wake to their next step with
     * an empty {@code awaited()} (a wake, not a failure).
     *
     * @return how many awaits timed out
     */
    public int fireTimeouts() {
        int total = 0;
        Set<String> queues = new LinkedHashSet<>();
        while (true) {
            List<LeaseSql.Reaped> woken = db.inTransaction(c -> awaitSql.fireTimeouts(c, clock.instant(), config.batch()));
            total += woken.size();
            woken.forEach(r -> queues.add(r.queue()));
            if (woken.size() < config.batch()) {
                break;
            }
        }
        if (total > 0) {
            metrics.awaitTimeouts.add(total);
            queues.forEach(poke::poke);
        }
        return total;
    }
}
