package io.gendurable.impl.admission;

import io.gendurable.impl.runtime.EngineContext;

import java.util.List;

/**
 * The gate columns of the instance rows, for a limiter that keeps its counts outside PostgreSQL:
 * stamping admitted claims (fenced by their token, as the PostgreSQL limiter does) and listing the
 * gated claims, from which such a limiter rebuilds its holders after losing its state.
 */
public final class GateRows {
    private final EngineContext ctx;
    private final BucketSql sql;

    /** @param ctx the engine's context (its database and statements) */
    public GateRows(EngineContext ctx) {
        this.ctx = ctx;
        this.sql = ctx.statements().of(BucketSql.class, BucketSql::new);
    }

    /**
     * Stamps admitted gated claims in one transaction, all or nothing.
     *
     * @param stamps the admitted gated claims and their shard
     * @throws ClaimLostException when a claim was lost meanwhile (nothing is stamped)
     */
    public void stamp(List<BucketSql.Stamp> stamps) {
        if (stamps.isEmpty()) {
            return;
        }
        ctx.db().inTransaction(c -> {
            int stamped = sql.stamp(c, stamps);
            if (stamped != stamps.size()) {
                throw new ClaimLostException("admission of " + stamps.size() + " gated rows stamped only " + stamped
                        + ": a claim was lost or its row is locked by another transaction; nothing was admitted");
            }
            return null;
        });
    }

    /** @return every executing gated claim, admitted or not yet */
    public List<BucketSql.Holder> holders() {
        return ctx.db().inTransaction(sql::holders);
    }
}
