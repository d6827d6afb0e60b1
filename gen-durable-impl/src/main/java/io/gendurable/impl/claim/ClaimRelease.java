package io.gendurable.impl.claim;

import io.gendurable.impl.admission.BucketSql;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.SqlErrors;
import io.gendurable.impl.lease.LeaseSql;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.step.Claimed;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The one path that gives claims that never started back to {@code runnable}: a drain's buffered
 * rows, rows admission denied, rows left behind by a failed step. In ONE transaction, the
 * token-guarded release and the credit of the gate slots of exactly the rows it released. A row
 * whose claim was lost meanwhile (reaped, maybe claimed again by another node, which now holds
 * the slot count) is not released and credits nothing: crediting it would admit more than the
 * gate's limit. Slots of a backend outside PostgreSQL ({@link Limiter.Slot#inBand()} false) are
 * credited through the limiter once that transaction has committed.
 */
public final class ClaimRelease {
    private final EngineContext ctx;
    private final LeaseSql leaseSql;
    private final BucketSql bucketSql;
    private final Limiter limiter;
    private final Consumer<List<Long>> finishCancels;

    /**
     * @param ctx     the engine's context (its database, statements and clock)
     * @param limiter credits the released rows' slots that live outside PostgreSQL
     */
    public ClaimRelease(EngineContext ctx, Limiter limiter) {
        this(ctx, limiter, ids -> { });
    }

    /**
     * @param finishCancels ends cancelled the claims this release left because their cancel was
     *                      requested (a buffered row never ran: nothing to wait for)
     */
    public ClaimRelease(EngineContext ctx, Limiter limiter, Consumer<List<Long>> finishCancels) {
        this.finishCancels = finishCancels;
        this.ctx = ctx;
        this.limiter = limiter;
        this.leaseSql = ctx.statements().of(LeaseSql.class, LeaseSql::new);
        this.bucketSql = ctx.statements().of(BucketSql.class, BucketSql::new);
    }

    /** @return how many of {@code rows} went back to runnable */
    public int release(String worker, List<Claimed> rows) {
        if (rows.isEmpty()) {
            return 0;
        }
        Map<Long, Long> claims = new LinkedHashMap<>();
        for (Claimed p : rows) {
            claims.put(p.row().id(), p.row().claimToken());
        }
        try {
            return release(worker, rows, claims, false);
        } catch (RuntimeException e) {
            if (!SqlErrors.isLockTimeout(e)) {
                throw e;
            }
            // A row is held by a long transaction elsewhere: release the others now; that one stays
            // claimed until its lease expires.
            return release(worker, rows, claims, true);
        }
    }

    private int release(String worker, List<Claimed> rows, Map<Long, Long> claims, boolean skipLocked) {
        List<Limiter.Slot> outOfBand = new ArrayList<>();
        List<Long> requested = new ArrayList<>();
        int n = ctx.db().inTransaction(c -> {
            outOfBand.clear();
            requested.clear();
            Set<Long> released = leaseSql.release(c, worker, claims, ctx.clock().instant(), skipLocked);
            if (released.size() < claims.size()) {
                requested.addAll(leaseSql.cancelRequested(c, worker, claims));  // the release left them
            }
            List<Limiter.Slot> slots = new ArrayList<>();
            for (Claimed p : rows) {
                if (p.slot() != null && released.contains(p.row().id())) {
                    (p.slot().inBand() ? slots : outOfBand).add(p.slot());
                }
            }
            if (!slots.isEmpty()) {
                bucketSql.credit(c, slots);
            }
            return released.size();
        });
        if (!outOfBand.isEmpty()) {
            limiter.credit(outOfBand);  // after the commit: a failure leaks until the lease lapses
        }
        if (!requested.isEmpty()) {
            // a cancel was requested for rows this node claimed but never ran: end them cancelled now
            // (on failure they stay claimed until their lease lapses, then the reaper ends them)
            finishCancels.accept(requested);
        }
        return n;
    }
}
