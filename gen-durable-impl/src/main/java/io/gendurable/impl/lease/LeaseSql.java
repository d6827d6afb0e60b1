package io.gendurable.impl.lease;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The claim-lifecycle statements: heartbeat (extend), reaper (expired leases back to
 * {@code runnable} with {@code attempt + 1}), the reaper's await-timeout sweep (due parks back
 * to {@code runnable}), start-up reclaim of a dead predecessor's claims, and the drain's release
 * of buffered claims. Every multi-row statement locks its rows in one
 * global order (id, or lease expiry then id for the reaper's sweep) with
 * {@code FOR NO KEY UPDATE SKIP LOCKED}: none of them ever waits for a row lock, so none can
 * join a deadlock cycle with the flush. The heartbeat and the release are guarded by the claim's
 * fencing token; the reaper and the reclaim clear it.
 */
public final class LeaseSql {
    /** The {@code last_error} a reclaimed row gets (followed by the attempt that was lost). */
    public static final String LEASE_EXPIRED = "lease expired (its worker died, hung or lost the database) on attempt ";

    /**
     * What an expired claim becomes, in the reaper's sweep and the start-up reclaim alike: runnable
     * at once, one more attempt, no claim left (no token, no shard), the lapse as its last error.
     * Parameters: {@code eligible_at}, {@code updated_at}.
     */
    private static final String EXPIRED_TO_RUNNABLE = """
            SET status = 'runnable', attempt = g.attempt + 1, locked_by = NULL, lease_expires_at = NULL,
                    claim_token = NULL, concurrency_shard = NULL, eligible_at = ?, updated_at = ?,
                    last_error = '""" + LEASE_EXPIRED + "' || g.attempt";

    private final String heartbeatSql;
    private final String reapSql;
    private final String reclaimSql;
    private final String releaseSql;
    private final String releaseSkippingSql;
    private final String timeoutSql;
    private final String lapsedCancelsSql;
    private final String requestedSql;

    public LeaseSql(SchemaName schema) {
        String t = schema.instances();
        // Index: primary key. Guard: the claim's fencing token. Rows are locked in id order, as
        // the flush locks them, and rows locked elsewhere (a flush committing the row, a caller's
        // open transaction that signalled it) are skipped: their lease is renewed by the next beat
        // or by the flush itself. A heartbeat never waits, so it is in no deadlock cycle.
        this.heartbeatSql = """
                WITH mine AS (
                    SELECT g.id FROM %1$s g JOIN unnest(?::bigint[], ?::bigint[]) AS h(id, token) ON g.id = h.id
                    WHERE g.claim_token = h.token AND g.locked_by = ? AND g.status::text = 'executing'
                    ORDER BY g.id
                    FOR NO KEY UPDATE OF g SKIP LOCKED
                )
                UPDATE %1$s g SET lease_expires_at = ?
                FROM mine WHERE g.id = mine.id
                RETURNING g.id, g.cancel_requested IS NOT NULL
                """.formatted(t);
        // Index: gen_durable_lease. A reclaimed row re-runs its step from scratch.
        this.reapSql = """
                WITH expired AS (
                -- fence: takes lapsed claims back and clears their tokens (their late writes are stale)
                    SELECT id FROM %1$s
                    WHERE status = 'executing' AND lease_expires_at < ? AND cancel_requested IS NULL
                    ORDER BY lease_expires_at, id
                    LIMIT ?
                    FOR NO KEY UPDATE SKIP LOCKED
                )
                UPDATE %1$s g
                %2$s
                FROM expired
                WHERE g.id = expired.id AND g.status = 'executing' AND g.lease_expires_at < ?
                RETURNING g.id, g.queue
                """.formatted(t, EXPIRED_TO_RUNNABLE);
        // Index: gen_durable_lease. Same node and queue, another incarnation, and a lease that
        // nobody renewed lately: a live twin with the same node id is never robbed.
        this.reclaimSql = """
                WITH dead AS (
                -- fence: takes a dead predecessor's lapsed claims back and clears their tokens (their late writes are stale)
                    SELECT id FROM %1$s
                    WHERE status = 'executing' AND locked_by LIKE ? ESCAPE '\\' AND locked_by <> ?
                      AND lease_expires_at < ? AND cancel_requested IS NULL
                    ORDER BY id
                    FOR NO KEY UPDATE SKIP LOCKED
                )
                UPDATE %1$s g
                %2$s
                FROM dead
                WHERE g.id = dead.id
                RETURNING g.id
                """.formatted(t, EXPIRED_TO_RUNNABLE);
        // A buffered claim never started: back to runnable as it was (no attempt spent). Guarded
        // by the fencing token; locked in id order. RETURNING says exactly which claims went back,
        // so only their gate slots are credited. Two forms: one waits briefly for rows locked
        // elsewhere (a signaller's transaction), the fallback skips them (they stay claimed until
        // their lease expires: the safe direction).
        String release = """
                WITH mine AS (
                    SELECT g.id FROM %1$s g JOIN unnest(?::bigint[], ?::bigint[]) AS r(id, token) ON g.id = r.id
                    WHERE g.claim_token = r.token AND g.locked_by = ? AND g.status::text = 'executing'
                      AND g.cancel_requested IS NULL
                    ORDER BY g.id
                    FOR NO KEY UPDATE OF g%2$s
                )
                UPDATE %1$s g SET status = 'runnable', locked_by = NULL, lease_expires_at = NULL, claim_token = NULL,
                                  concurrency_shard = NULL, updated_at = ?
                FROM mine WHERE g.id = mine.id
                RETURNING g.id
                """;
        this.releaseSql = release.formatted(t, "");
        this.releaseSkippingSql = release.formatted(t, " SKIP LOCKED");
        this.lapsedCancelsSql = """
                SELECT id FROM %1$s
                WHERE cancel_requested IS NOT NULL AND status = 'executing' AND lease_expires_at < ?
                ORDER BY id LIMIT ?
                """.formatted(t);
        this.requestedSql = """
                SELECT g.id FROM %1$s g JOIN unnest(?::bigint[], ?::bigint[]) AS r(id, token) ON g.id = r.id
                WHERE g.claim_token = r.token AND g.locked_by = ? AND g.status::text = 'executing'
                  AND g.cancel_requested IS NOT NULL
                """.formatted(t);
        this.timeoutSql = """
                WITH due AS (
                    SELECT id FROM %1$s
                    WHERE status = 'awaiting_signal' AND await_deadline IS NOT NULL AND await_deadline <= ?
                    ORDER BY await_deadline, id
                    LIMIT ?
                    FOR NO KEY UPDATE SKIP LOCKED
                )
                UPDATE %1$s g
                SET status = 'runnable', awaits = NULL, await_deadline = NULL, eligible_at = ?, updated_at = ?
                FROM due
                WHERE g.id = due.id AND g.status = 'awaiting_signal'
                RETURNING g.id, g.queue
                """.formatted(t);
    }

    /** @return the heartbeat's text (for plan checks); parameters: ids, tokens, worker, lease */
    public String heartbeatSql() {
        return heartbeatSql;
    }

    /** @return the waiting release's text (for plan checks); parameters: ids, tokens, worker, now */
    public String releaseSql() {
        return releaseSql;
    }

    /**
     * @param claims id → the fencing token of the claim this worker holds on it
     * @return the ids whose leases were extended (a claim lost meanwhile, or a row locked elsewhere, is not among them)
     */
    public Set<Long> heartbeat(Connection c, String worker, Map<Long, Long> claims, Instant leaseUntil) throws SQLException {
        return heartbeat(c, worker, claims, leaseUntil, new HashSet<>());
    }

    /**
     * @param cancelRequested filled with the renewed ids whose cancel was requested (their steps are to be interrupted)
     * @return the ids whose leases were extended (a claim lost meanwhile, or a row locked elsewhere, is not among them)
     */
    public Set<Long> heartbeat(Connection c, String worker, Map<Long, Long> claims, Instant leaseUntil,
                               Set<Long> cancelRequested) throws SQLException {
        Set<Long> renewed = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(heartbeatSql)) {
            bindClaims(c, ps, claims);
            ps.setString(3, worker);
            ps.setObject(4, Jdbc.ts(leaseUntil));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    renewed.add(rs.getLong(1));
                    if (rs.getBoolean(2)) {
                        cancelRequested.add(rs.getLong(1));
                    }
                }
            }
        }
        return renewed;
    }

    private static void bindClaims(Connection c, PreparedStatement ps, Map<Long, Long> claims) throws SQLException {
        Long[] ids = new Long[claims.size()];
        Long[] tokens = new Long[claims.size()];
        int i = 0;
        for (Map.Entry<Long, Long> e : claims.entrySet()) {
            ids[i] = e.getKey();
            tokens[i++] = e.getValue();
        }
        ps.setArray(1, c.createArrayOf("bigint", ids));
        ps.setArray(2, c.createArrayOf("bigint", tokens));
    }

    /** A row the reaper returned to runnable. */
    public record Reaped(long id, String queue) {
    }

    /** @return the rows whose expired leases were reclaimed (at most {@code limit}) */
    public List<Reaped> reap(Connection c, Instant now, int limit) throws SQLException {
        return sweep(c, reapSql, now, limit, 5);
    }

    /** Runs a sweep whose parameters are {@code now}, the limit, then {@code now} up to {@code params}: (id, queue) rows. */
    private static List<Reaped> sweep(Connection c, String sql, Instant now, int limit, int params) throws SQLException {
        List<Reaped> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 1; i <= params; i++) {
                ps.setObject(i, Jdbc.ts(now));
            }
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Reaped(rs.getLong(1), rs.getString(2)));
                }
            }
        }
        return out;
    }

    /**
     * The await-timeout sweep: parked rows whose deadline passed wake to their next step with no
     * awaited signals (index {@code gen_durable_await_deadline}, ordered {@code SKIP LOCKED} claim).
     *
     * @return (id, queue) of the rows whose await timed out, at most {@code limit}
     */
    public List<Reaped> fireTimeouts(Connection c, Instant now, int limit) throws SQLException {
        return sweep(c, timeoutSql, now, limit, 4);
    }

    /**
     * Releases the claims of earlier incarnations of this worker's node and queue.
     *
     * @param workerPrefix the node-and-queue prefix every incarnation's worker id starts with
     * @param worker       this incarnation's worker id (never released)
     * @param staleBefore  only leases expiring before this instant count as dead
     * @return how many rows were released
     */
    public int reclaimPredecessor(Connection c, String workerPrefix, String worker, Instant staleBefore,
                                  Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(reclaimSql)) {
            ps.setString(1, escapeLike(workerPrefix) + "%");
            ps.setString(2, worker);
            ps.setObject(3, Jdbc.ts(staleBefore));
            ps.setObject(4, Jdbc.ts(now));
            ps.setObject(5, Jdbc.ts(now));
            int n = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    n++;
                }
            }
            return n;
        }
    }

    /**
     * @param claims      id → the fencing token of the claim this worker holds on it
     * @param skipLocked  false: wait up to {@link Jdbc#BRIEF_LOCK_WAIT} for a row locked elsewhere
     *                    (then fail with SQLSTATE 55P03); true: leave such rows claimed
     * @return the ids whose claims went back to runnable (a claim lost meanwhile is not among them)
     */
    public Set<Long> release(Connection c, String worker, Map<Long, Long> claims, Instant now, boolean skipLocked)
            throws SQLException {
        Set<Long> released = new HashSet<>();
        if (claims.isEmpty()) {
            return released;
        }
        if (!skipLocked) {
            return Jdbc.waitingBriefly(c, () -> release(c, releaseSql, worker, claims, now));
        }
        return release(c, releaseSkippingSql, worker, claims, now);
    }

    private static Set<Long> release(Connection c, String sql, String worker, Map<Long, Long> claims, Instant now)
            throws SQLException {
        Set<Long> released = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bindClaims(c, ps, claims);
            ps.setString(3, worker);
            ps.setObject(4, Jdbc.ts(now));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    released.add(rs.getLong(1));
                }
            }
        }
        return released;
    }

    /**
     * @return the ids of rows whose cancel was requested and that no step will bring to a flush: their
     * lease lapsed before {@code now} (the step is presumed dead), at most {@code limit}; the
     * reaper leaves them to the cancel, which ends them cancelled (index gen_durable_cancel_requested)
     */
    public List<Long> lapsedCancels(Connection c, Instant now, int limit) throws SQLException {
        return ids(c, lapsedCancelsSql, ps -> {
            ps.setObject(1, Jdbc.ts(now));
            ps.setInt(2, limit);
        });
    }

    /** @return which of this worker's claims have a cancel requested (a release leaves them to the cancel) */
    public List<Long> cancelRequested(Connection c, String worker, Map<Long, Long> claims) throws SQLException {
        return ids(c, requestedSql, ps -> {
            bindClaims(c, ps, claims);
            ps.setString(3, worker);
        });
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private static List<Long> ids(Connection c, String sql, Binder binder) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    private static String escapeLike(String s) {
        return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }
}
