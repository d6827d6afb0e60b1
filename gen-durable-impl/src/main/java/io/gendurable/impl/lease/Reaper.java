package io.gendurable.impl.lease;

import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.Periodic;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Returns rows whose lease expired (their worker died or lost the database) to {@code runnable}
 * with {@code attempt + 1}, and pokes their queues; in the same loop, fires due await timeouts. Safe on several nodes at once: the sweep
 * claims with ordered {@code SKIP LOCKED}.
 */
public final class Reaper {
    private static final Logger LOG = System.getLogger("io.gendurable.lease");

    private final EngineConfig.ReaperConfig config;
    private final Db db;
    private final LeaseSql sql;
    private final Poke poke;
    private final InstantSource clock;
    private final EngineMetrics metrics;
    private final Periodic loop;

    public Reaper(EngineConfig.ReaperConfig config, Db db, LeaseSql sql, Poke poke, ScheduledExecutorService timer,
           InstantSource clock, EngineMetrics metrics) {
        this.config = config;
        this.db = db;
        this.sql = sql;
        this.poke = poke;
        this.clock = clock;
        this.metrics = metrics;
        this.loop = new Periodic(timer, config.interval(), () -> {
            Loops.guarded(LOG, "reaper", metrics, this::runOnce);
            Loops.guarded(LOG, "await-timeout sweep", metrics, this::fireTimeouts);
        });
    }

    public void start() {
        loop.start();
    }

    public void stop() {
        loop.stop();
    }

    /** @return how many expired leases were reclaimed (sweeps until a batch comes back short) */
    public int runOnce() {
        int total = sweep(c -> sql.reap(c, clock.instant(), config.batch()));
        if (total > 0) {
            metrics.reaped.add(total);
            LOG.log(Level.INFO, "gen-durable reaper: " + total + " expired leases returned to runnable");
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
        int total = sweep(c -> sql.fireTimeouts(c, clock.instant(), config.batch()));
        metrics.awaitTimeouts.add(total);
        return total;
    }

    /** Runs one batched statement until a batch comes back short, then pokes the queues of the rows it made runnable. */
    private int sweep(Db.Work<List<LeaseSql.Reaped>> batch) {
        int total = 0;
        Set<String> queues = new LinkedHashSet<>();
        while (true) {
            List<LeaseSql.Reaped> rows = db.inTransaction(batch);
            total += rows.size();
            rows.forEach(r -> queues.add(r.queue()));
            if (rows.size() < config.batch()) {
                break;
            }
        }
        queues.forEach(poke::poke);
        return total;
    }
}
