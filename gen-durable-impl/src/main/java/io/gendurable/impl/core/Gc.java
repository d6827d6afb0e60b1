package io.gendurable.impl.core;

import io.gendurable.impl.sql.Db;
import io.gendurable.impl.sql.GcSql;

import java.time.InstantSource;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Deletes terminal rows older than the retention, a batch at a time, sweeping again at once
 * while batches come back full; spares terminal children whose parent is still mid-join. In
 * the same loop: prunes idle rate buckets and reconciles gate counters ({@link BucketSweeper}).
 */
public final class Gc {
    private final EngineConfig.GcConfig config;
    private final Db db;
    private final GcSql sql;
    private final BucketSweeper buckets;
    private final ScheduledExecutorService timer;
    private final InstantSource clock;
    private final EngineMetrics metrics;
    private ScheduledFuture<?> loop;

    Gc(EngineConfig.GcConfig config, Db db, GcSql sql, BucketSweeper buckets, ScheduledExecutorService timer,
       InstantSource clock, EngineMetrics metrics) {
        this.buckets = buckets;
        this.config = config;
        this.db = db;
        this.sql = sql;
        this.timer = timer;
        this.clock = clock;
        this.metrics = metrics;
    }

    synchronized void start() {
        if (loop == null) {
            long ms = config.interval().toMillis();
            loop = timer.scheduleWithFixedDelay(() -> {
                Loops.guarded("gc", metrics, this::runOnce);
                Loops.guarded("gc of rate buckets", metrics, this::sweepRateBuckets);
                Loops.guarded("gate reconciler", metrics, this::reconcileGates);
            }, ms, ms, TimeUnit.MILLISECONDS);
        }
    }

    synchronized void stop() {
        if (loop != null) {
            loop.cancel(false);
            loop = null;
        }
    }

    /** @return how many idle or orphaned rate-bucket shards were deleted */
    public int sweepRateBuckets() {
        return buckets.sweepRates();
    }

    /** @return how many gate counter shards the reconciler corrected, backfilled or deleted */
    public int reconcileGates() {
        return buckets.reconcileGates();
    }

    /** @return how many terminal rows were deleted */
    public int runOnce() {
        int total = 0;
        while (true) {
            int n = db.inTransaction(c -> sql.sweep(c, clock.instant().minus(config.retention()), config.batch()));
            total += n;
            if (n < config.batch()) {
                break;
            }
        }
        metrics.gcSwept.add(total);
        return total;
    }
}
