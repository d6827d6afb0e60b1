package io.gendurable.impl.ops;

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
import java.util.Set;

/**
 * The summary: one scan of the instance table, grouped by queue and status, with the earliest
 * {@code eligible_at} of the due runnable rows. No index serves a count of every row: on
 * 1,000,000 rows it costs a sequential scan (docs/performance.md has the figure).
 */
final class SummarySql {
    /** One (queue, status) group. */
    record Group(String queue, String status, long count, Instant oldestDue) {
    }

    private final String sql;
    private final String pausedSql;

    SummarySql(SchemaName schema) {
        this.sql = """
                SELECT queue, status::text AS status, count(*) AS n,
                       min(eligible_at) FILTER (WHERE status = 'runnable' AND eligible_at <= ?) AS oldest_due
                FROM %1$s.gen_durable GROUP BY queue, status ORDER BY queue, status""".formatted(schema.name());
        this.pausedSql = "SELECT queue FROM " + schema.qualify("gen_durable_paused_queues");
    }

    Set<String> paused(Connection c) throws SQLException {
        Set<String> out = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(pausedSql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    List<Group> groups(Connection c, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, Jdbc.ts(now));
            List<Group> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Group(rs.getString("queue"), rs.getString("status"), rs.getLong("n"),
                            Jdbc.instant(rs, "oldest_due")));
                }
            }
            return out;
        }
    }
}
