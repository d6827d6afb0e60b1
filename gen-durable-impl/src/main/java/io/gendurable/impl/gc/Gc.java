package io.gendurable.impl.gc;

import io.gendurable.impl.admission.BucketSweeper;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.Periodic;

import java.time.InstantSource;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Deletes terminal rows older than the retention, a batch at a time, sweeping again at once
 * while batches come back full; spares terminal children whose parent is still mid-join. In
 * the same loop: prunes idle rate buckets and reconciles gate counters ({@link BucketSweeper}).
 */
public final class Gc {
    private static final System.Logger LOG = System.getLogger("io.gendurable.gc");

    private final EngineConfig.GcConfig config;
    private final Db db;
    private final GcSql sql;
    private final BucketSweeper buckets;
    private final InstantSource clock;
    private final EngineMetrics metrics;
    private final Periodic loop;

    public Gc(EngineConfig.GcConfig config, Db db, GcSql sql, BucketSweeper buckets, ScheduledExecutorService timer,
       InstantSource clock, EngineMetrics metrics) {
        this.buckets = buckets;
        this.config = config;
        this.db = db;
        this.sql = sql;
        this.clock = clock;
        this.metrics = metrics;
        this.loop = new Periodic(timer, config.interval(), () -> {
            Loops.guarded(LOG, "gc", metrics, this::runOnce);
            Loops.guarded(LOG, "gc of rate buckets", metrics, this::sweepRateBuckets);
            Loops.guarded(LOG, "gate reconciler", metrics, this::reconcileGates);
        });
    }

    public void start() {
        loop.start();
    }

    public void stop() {
        loop.stop();
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
