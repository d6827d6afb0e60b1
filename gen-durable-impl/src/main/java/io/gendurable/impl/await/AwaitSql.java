package io.gendurable.impl.await;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.lease.LeaseSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The await family: the timeout sweep (parked rows whose deadline passed wake to their next
 * step with no awaited signals; index {@code gen_durable_await_deadline}, ordered
 * {@code SKIP LOCKED} claim), and the await bridge's batched status probe (one statement per
 * tick for every waiter on the node; primary key).
 */
public final class AwaitSql {
    private final String timeoutSql;
    private final String probeSql;

    public AwaitSql(SchemaName schema) {
        String t = schema.instances();
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
        this.probeSql = "SELECT id, status::text FROM " + t + " WHERE id = ANY(?::bigint[])";
    }

    /** @return (id, queue) of the rows whose await timed out, at most {@code limit} */
    public List<LeaseSql.Reaped> fireTimeouts(Connection c, Instant now, int limit) throws SQLException {
        List<LeaseSql.Reaped> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(timeoutSql)) {
            ps.setObject(1, Jdbc.ts(now));
            ps.setInt(2, limit);
            ps.setObject(3, Jdbc.ts(now));
            ps.setObject(4, Jdbc.ts(now));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new LeaseSql.Reaped(rs.getLong(1), rs.getString(2)));
                }
            }
        }
        return out;
    }

    /** @return id → status (database name) of the ids that still exist */
    public Map<Long, String> probe(Connection c, Collection<Long> ids) throws SQLException {
        Map<Long, String> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(probeSql)) {
            ps.setArray(1, Jdbc.longs(c, ids));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getLong(1), rs.getString(2));
                }
            }
        }
        return out;
    }
}
