package io.gendurable.impl.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The claim-lifecycle statements: heartbeat (extend), reaper (expired leases back to
 * {@code runnable} with {@code attempt + 1}), start-up reclaim of a dead predecessor's claims,
 * and the drain's release of buffered claims. Every multi-row sweep claims its rows in order
 * with {@code FOR NO KEY UPDATE SKIP LOCKED}; every write is ownership-guarded.
 */
public final class LeaseSql {
    /** The {@code last_error} a reclaimed row gets (followed by the attempt that was lost). */
    public static final String LEASE_EXPIRED = "lease expired (its worker died, hung or lost the database) on attempt ";

    private final String heartbeatSql;
    private final String reapSql;
    private final String reclaimSql;
    private final String releaseSql;

    public LeaseSql(SchemaName schema) {
        String t = schema.instances();
        // Index: primary key. Guard: the worker still owns the claim.
        this.heartbeatSql = """
                UPDATE %1$s SET lease_expires_at = ?
                WHERE id = ANY(?::bigint[]) AND locked_by = ? AND status = 'executing'
                """.formatted(t);
        // Index: gen_durable_lease. A reclaimed row re-runs its step from scratch.
        this.reapSql = """
                WITH expired AS (
                    SELECT id FROM %1$s
                    WHERE status = 'executing' AND lease_expires_at < ?
                    ORDER BY lease_expires_at, id
                    LIMIT ?
                    FOR NO KEY UPDATE SKIP LOCKED
                )
                UPDATE %1$s g
                SET status = 'runnable', attempt = g.attempt + 1, locked_by = NULL, lease_expires_at = NULL,
                    concurrency_shard = NULL, eligible_at = ?, updated_at = ?,
                    last_error = '%2$s' || g.attempt
                FROM expired
                WHERE g.id = expired.id AND g.status = 'executing' AND g.lease_expires_at < ?
                RETURNING g.id, g.queue
                """.formatted(t, LEASE_EXPIRED);
        // Index: gen_durable_lease. Same node and queue, another incarnation, and a lease that
        // nobody renewed lately: a live twin with the same node id is never robbed.
        this.reclaimSql = """
                WITH dead AS (
                    SELECT id FROM %1$s
                    WHERE status = 'executing' AND locked_by LIKE ? ESCAPE '\\' AND locked_by <> ?
                      AND lease_expires_at < ?
                    ORDER BY id
                    FOR NO KEY UPDATE SKIP LOCKED
                )
                UPDATE %1$s g
                SET status = 'runnable', attempt = g.attempt + 1, locked_by = NULL, lease_expires_at = NULL,
                    concurrency_shard = NULL, eligible_at = ?, updated_at = ?,
                    last_error = '%2$s' || g.attempt
                FROM dead
                WHERE g.id = dead.id
                RETURNING g.id
                """.formatted(t, LEASE_EXPIRED);
        // A buffered claim never started: back to runnable as it was (no attempt spent).
        this.releaseSql = """
                UPDATE %1$s SET status = 'runnable', locked_by = NULL, lease_expires_at = NULL,
                                concurrency_shard = NULL, updated_at = ?
                WHERE id = ANY(?::bigint[]) AND locked_by = ? AND status = 'executing'
                """.formatted(t);
    }

    /** @return how many leases were extended */
    public int heartbeat(Connection c, String worker, Collection<Long> ids, Instant leaseUntil) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(heartbeatSql)) {
            ps.setObject(1, Jdbc.ts(leaseUntil));
            ps.setArray(2, Jdbc.longs(c, ids));
            ps.setString(3, worker);
            return ps.executeUpdate();
        }
    }

    /** A row the reaper returned to runnable. */
    public record Reaped(long id, String queue) {
    }

    /** @return the rows whose expired leases were reclaimed (at most {@code limit}) */
    public List<Reaped> reap(Connection c, Instant now, int limit) throws SQLException {
        List<Reaped> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(reapSql)) {
            ps.setObject(1, Jdbc.ts(now));
            ps.setInt(2, limit);
            ps.setObject(3, Jdbc.ts(now));
            ps.setObject(4, Jdbc.ts(now));
            ps.setObject(5, Jdbc.ts(now));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Reaped(rs.getLong(1), rs.getString(2)));
                }
            }
        }
        return out;
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

    /** @return how many buffered claims went back to runnable */
    public int release(Connection c, String worker, Collection<Long> ids, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(releaseSql)) {
            ps.setObject(1, Jdbc.ts(now));
            ps.setArray(2, Jdbc.longs(c, ids));
            ps.setString(3, worker);
            return ps.executeUpdate();
        }
    }

    private static String escapeLike(String s) {
        return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }
}
