package io.gendurable.impl.gauges;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The queue gauges' one statement: the live rows of every queue, counted by status, and each
 * queue's oldest due runnable row. Three branches, so that each reads its status through the
 * narrowest index there is and never the terminal rows, which are most of the table:
 * <ul>
 *   <li>{@code runnable}: an index-only scan of {@code gen_durable_pick} ({@code (queue, priority,
 *       eligible_at) WHERE status = 'runnable' AND NOT key_blocked}), already grouped by queue, and
 *       one of {@code gen_durable_key_blocked} (the rows blocked behind their K = 1 key);</li>
 *   <li>{@code executing}: {@code gen_durable_lease}, the claims in flight (few);</li>
 *   <li>{@code awaiting_signal}, {@code awaiting_children}: an index leading with {@code status}
 *       (the operations API's search indexes of schema version 3) makes this branch a scan of the
 *       parked rows only. The literal status list lets the planner match a partial index's predicate.</li>
 * </ul>
 * Paused queues: when queues get a table of their own (with a {@code paused} flag), a fourth
 * branch reads it here and {@link Row} gains the flag; {@link QueueGauges} already carries it
 * per queue ({@link QueueGauges.Figures#paused()}).
 */
public final class GaugesSql {
    private final String sql;

    /** @param schema the engine's schema */
    public GaugesSql(SchemaName schema) {
        String t = schema.instances();
        this.sql = """
                SELECT queue, 'runnable' AS status, count(*) AS n,
                       min(eligible_at) FILTER (WHERE eligible_at <= ?) AS oldest_due
                FROM (SELECT queue, eligible_at FROM %1$s WHERE status = 'runnable' AND NOT key_blocked
                      UNION ALL
                      SELECT queue, eligible_at FROM %1$s WHERE status = 'runnable' AND key_blocked) r
                GROUP BY queue
                UNION ALL
                SELECT queue, 'executing', count(*), NULL
                FROM %1$s WHERE status = 'executing' GROUP BY queue
                UNION ALL
                SELECT queue, status::text, count(*), NULL
                FROM %1$s WHERE status IN ('awaiting_signal', 'awaiting_children') GROUP BY queue, status
                """.formatted(t);
    }

    /** @return the statement, for plan checks; its one parameter is "now" */
    public String sql() {
        return sql;
    }

    /**
     * One (queue, status) group.
     *
     * @param queue     the queue
     * @param status    {@code runnable}, {@code executing}, {@code awaiting_signal} or {@code awaiting_children}
     * @param count     its rows, cluster-wide
     * @param oldestDue for {@code runnable}: the earliest {@code eligible_at} not after now, or null when none is due
     */
    public record Row(String queue, String status, long count, Instant oldestDue) {
    }

    /** @param now what "due" means (the engine's clock) @return every non-empty (queue, status) group */
    public List<Row> read(Connection c, Instant now) throws SQLException {
        List<Row> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, Jdbc.ts(now));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Row(rs.getString("queue"), rs.getString("status"), rs.getLong("n"),
                            Jdbc.instant(rs, "oldest_due")));
                }
            }
        }
        return out;
    }
}
