package io.gendurable.impl.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The claim: up to {@code limit} due runnable rows of one queue, in {@code (priority, eligible_at)}
 * order, locked in-scan with {@code FOR NO KEY UPDATE SKIP LOCKED} (a claim never waits, so
 * instance-row locks cannot join a deadlock cycle), flipped to {@code executing} with a lease.
 * One statement, one round trip. Index: {@code gen_durable_pick}. Each row says whether it has
 * signals (a {@code signals_target} probe) or children (a {@code gen_durable_parent} probe), so
 * the inbox and children loads run only when one does.
 */
public final class ClaimSql {
    private final String sql;

    public ClaimSql(SchemaName schema) {
        this.sql = """
                WITH picked AS (
                    SELECT id FROM %1$s
                    WHERE status = 'runnable' AND queue = ? AND eligible_at <= ?
                    ORDER BY priority, eligible_at
                    LIMIT ?
                    FOR NO KEY UPDATE SKIP LOCKED
                )
                UPDATE %1$s g
                SET status = 'executing', locked_by = ?, lease_expires_at = ?, updated_at = ?
                FROM picked
                WHERE g.id = picked.id
                RETURNING g.id, g.fsm, g.fsm_version, g.step, g.state::text AS state, g.attempt, g.queue,
                          g.priority, g.eligible_at, g.inserted_at, g.correlation_key, g.concurrency_key, g.awaits,
                          EXISTS (SELECT 1 FROM %2$s s WHERE s.target_id = g.id) AS has_signals, g.parent_id,
                          EXISTS (SELECT 1 FROM %1$s c WHERE c.parent_id = g.id) AS has_children
                """.formatted(schema.instances(), schema.qualify("signals"));
    }

    /** @return the claimed rows, sorted in pick order */
    public List<ClaimedRow> claim(Connection c, String queue, String worker, int limit, Instant now,
                                  Instant leaseUntil) throws SQLException {
        List<ClaimedRow> rows = new ArrayList<>(limit);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, queue);
            ps.setObject(2, Jdbc.ts(now));
            ps.setInt(3, limit);
            ps.setString(4, worker);
            ps.setObject(5, Jdbc.ts(leaseUntil));
            ps.setObject(6, Jdbc.ts(now));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new ClaimedRow(rs.getLong("id"), rs.getString("fsm"), rs.getInt("fsm_version"),
                            rs.getString("step"), rs.getString("state"), rs.getInt("attempt"), rs.getString("queue"),
                            rs.getInt("priority"), Jdbc.instant(rs, "eligible_at"), Jdbc.instant(rs, "inserted_at"),
                            rs.getString("correlation_key"), rs.getString("concurrency_key"),
                            awaits(rs.getArray("awaits")), rs.getBoolean("has_signals"),
                            Jdbc.longOrNull(rs, "parent_id"), rs.getBoolean("has_children")));
                }
            }
        }
        // RETURNING has no order: restore the pick order for dispatch.
        rows.sort(Comparator.comparingInt(ClaimedRow::priority).thenComparing(ClaimedRow::eligibleAt)
                .thenComparingLong(ClaimedRow::id));
        return rows;
    }

    private static List<String> awaits(java.sql.Array a) throws SQLException {
        return a == null ? List.of() : List.of((String[]) a.getArray());
    }
}
