package io.gendurable.impl.nodes;

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
 * The node beacons ({@code gen_durable_nodes}, schema version 7): one row per node, upserted by its
 * beacon with the rows older than the retention deleted in the same statement; the clean stop's
 * delete; the read of the operations API; and the runnable rows' rate-limit names for the alerts.
 */
public final class NodeSql {
    /** A beacon as stored. */
    record Row(String node, Instant startedAt, Instant seenAt, String infoJson) {
    }

    /** How many runnable rows of a queue carry a rate-limit name. */
    record RateUse(String queue, String name, long count) {
    }

    private final String beacon;
    private final String remove;
    private final String list;
    private final String rateNames;
    private final String maintenance;

    /** @param schema the engine's schema */
    public NodeSql(SchemaName schema) {
        String nodes = schema.qualify("gen_durable_nodes");
        // one statement per beacon: the upsert, and the delete of rows past the retention (a table of
        // one row per node: the delete's scan is a handful of rows, and usually deletes none)
        this.beacon = """
                WITH gone AS (DELETE FROM %1$s WHERE seen_at < ? AND node <> ?)
                INSERT INTO %1$s (node, started_at, seen_at, info) VALUES (?, ?, ?, ?::jsonb)
                ON CONFLICT (node) DO UPDATE SET started_at = EXCLUDED.started_at, seen_at = EXCLUDED.seen_at,
                                                 info = EXCLUDED.info""".formatted(nodes);
        this.remove = "DELETE FROM " + nodes + " WHERE node = ? AND started_at = ?";
        this.list = "SELECT node, started_at, seen_at, info::text AS info FROM " + nodes
                + " WHERE seen_at >= ? ORDER BY node";
        // a beacon without the field is an older node's: taken as running both (no false alarm in an upgrade)
        this.maintenance = """
                SELECT coalesce(bool_or(NOT jsonb_exists(info, 'maintenance') OR info->'maintenance' @> '["reaper"]'), false),
                       coalesce(bool_or(NOT jsonb_exists(info, 'maintenance') OR info->'maintenance' @> '["gc"]'), false)
                FROM %1$s WHERE seen_at >= ?""".formatted(nodes);
        // runnable rows only: gen_durable_pick's predicate (and gen_durable_key_blocked's), so the planner may walk that index; the
        // cost is one visit per runnable row (docs/operations.md, "Nodes")
        this.rateNames = """
                SELECT queue, split_part(rate_limit, ':', 1) AS name, count(*) AS n
                FROM (SELECT queue, rate_limit FROM %1$s WHERE status = 'runnable' AND NOT key_blocked
                      UNION ALL
                      SELECT queue, rate_limit FROM %1$s WHERE status = 'runnable' AND key_blocked) r
                WHERE rate_limit IS NOT NULL
                GROUP BY 1, 2 ORDER BY 1, 2""".formatted(schema.instances());
    }

    /**
     * Whether some node seen since {@code liveSince} runs the reaper, and the GC.
     *
     * @return {@code [reaper, gc]}
     */
    boolean[] maintenance(Connection c, Instant liveSince) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(maintenance)) {
            ps.setObject(1, Jdbc.ts(liveSince));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new boolean[]{rs.getBoolean(1), rs.getBoolean(2)};
            }
        }
    }

    void beacon(Connection c, String node, Instant startedAt, Instant seenAt, String infoJson, Instant pruneBefore)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(beacon)) {
            ps.setObject(1, Jdbc.ts(pruneBefore));
            ps.setString(2, node);
            ps.setString(3, node);
            ps.setObject(4, Jdbc.ts(startedAt));
            ps.setObject(5, Jdbc.ts(seenAt));
            ps.setString(6, infoJson);
            ps.executeUpdate();
        }
    }

    int remove(Connection c, String node, Instant startedAt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(remove)) {
            ps.setString(1, node);
            ps.setObject(2, Jdbc.ts(startedAt));
            return ps.executeUpdate();
        }
    }

    List<Row> list(Connection c, Instant seenSince) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(list)) {
            ps.setObject(1, Jdbc.ts(seenSince));
            List<Row> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Row(rs.getString("node"), Jdbc.instant(rs, "started_at"), Jdbc.instant(rs, "seen_at"),
                            rs.getString("info")));
                }
            }
            return out;
        }
    }

    List<RateUse> rateNames(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(rateNames); ResultSet rs = ps.executeQuery()) {
            List<RateUse> out = new ArrayList<>();
            while (rs.next()) {
                out.add(new RateUse(rs.getString("queue"), rs.getString("name"), rs.getLong("n")));
            }
            return out;
        }
    }
}
