package io.gendurable.impl.gc;

import io.gendurable.events.GcSwept;
import io.gendurable.impl.runtime.EventKind;
import io.gendurable.impl.runtime.Background;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.admission.BucketSweeper;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.Periodic;

import java.time.Duration;
import java.time.InstantSource;

/**
 * Deletes terminal rows older than the retention, a batch at a time, sweeping again at once
 * while batches come back full; spares terminal children whose parent is still mid-join. In
 * the same loop: prunes idle rate buckets and reconciles gate counters ({@link BucketSweeper}).
 */
public final class Gc implements Background {
    private static final System.Logger LOG = System.getLogger("io.gendurable.gc");

    private final EngineContext ctx;
    private final EngineConfig.GcConfig config;
    private final GcSql sql;
    private final BucketSweeper buckets;
    private final Periodic loop;

    /**
     * @param ctx     the engine's context
     * @param buckets the sweeper of rate buckets and reconciler of gates, run on the GC's tick
     */
    public Gc(EngineContext ctx, BucketSweeper buckets) {
        this.ctx = ctx;
        this.buckets = buckets;
        this.config = ctx.config().gc();
        this.sql = ctx.statements().of(GcSql.class, GcSql::new);
        this.loop = new Periodic(ctx.requireTimer(), config.interval(), this::pass);
    }

    /** One pass of the loop: each sweep guarded apart, then (when listened to and anything was swept) its {@code GcSwept} event. */
    public void pass() {
        int[] n = new int[3];
        Loops.guarded(LOG, "gc", ctx.metrics(), () -> n[0] = runOnce());
        Loops.guarded(LOG, "gc of the step history", ctx.metrics(), this::sweepHistory);
        Loops.guarded(LOG, "gc of rate buckets", ctx.metrics(), () -> n[1] = sweepRateBuckets());
        Loops.guarded(LOG, "gate reconciler", ctx.metrics(), () -> n[2] = reconcileGates());
        if ((n[0] | n[1] | n[2]) != 0 && ctx.bus().on(EventKind.GC_SWEPT)) {
            ctx.bus().publish(new GcSwept(n[0], n[1], n[2]));
        }
    }

    @Override
    public Periodic loop() {
        return loop;
    }

    /** @return the sweeper of rate buckets and reconciler of gates */
    public BucketSweeper buckets() {
        return buckets;
    }

    /** @return how many idle or orphaned rate-bucket shards were deleted */
    public int sweepRateBuckets() {
        return buckets.sweepRates();
    }

    /** @return how many gate counter shards the reconciler corrected, backfilled or deleted */
    public int reconcileGates() {
        return buckets.reconcileGates();
    }

    /** @return how many terminal rows were deleted: {@code done} ones past the retention, {@code failed} and {@code cancelled} ones past the failed-retention */
    public int runOnce() {
        int total = sweep(GcSql.Kind.DONE, config.retention()) + sweep(GcSql.Kind.FAILED, config.failedRetention());
        ctx.metrics().gcSwept.add(total);
        return total;
    }

    /** @return how many step history records past {@code gendurable.history.retention} were deleted */
    public int sweepHistory() {
        Duration retention = ctx.config().history().retention();
        int total = 0;
        while (true) {
            int n = ctx.db().inTransaction(c -> sql.sweepHistory(c, ctx.clock().instant().minus(retention), config.batch()));
            total += n;
            if (n < config.batch()) {
                return total;
            }
        }
    }

    private int sweep(GcSql.Kind kind, Duration retention) {
        int total = 0;
        while (true) {
            int n = ctx.db().inTransaction(c -> sql.sweep(c, kind, ctx.clock().instant().minus(retention), config.batch()));
            total += n;
            if (n < config.batch()) {
                return total;
            }
        }
    }
}
