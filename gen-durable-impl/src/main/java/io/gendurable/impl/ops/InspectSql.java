package io.gendurable.impl.ops;

import io.gendurable.InstanceDetails;
import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The native reads of {@code inspect} beside the entity read of the row itself, each through an
 * index: the inbox through {@code signals_target}, the children through {@code gen_durable_parent},
 * a key's executing rows through {@code gen_durable_lease}, the limits' configuration and counters
 * by primary key.
 */
final class InspectSql {
    /** A pending signal as stored. */
    record PendingRow(long id, String name, String payloadJson, String dedupKey, Instant insertedAt) {
    }

    /** The first pending signals and their total. */
    record Inbox(List<PendingRow> first, long count) {
    }

    /** A gate's declared limit (null when none is declared), executing holders and counter. */
    record GateRow(Double limit, long executing, Double available) {
    }

    /** A rate limit's declaration (nulls when none) and bucket (nulls when no row). */
    record RateRow(Double perSecond, Double burst, Double available, Instant lastRefill) {
    }

    /** A step history record as stored. */
    record HistoryRow(String step, int attempt, String outcome, Instant startedAt, Instant finishedAt, String node,
                      String error, String stateJson) {
    }

    private final String history;
    private final String inbox;
    private final String children;
    private final String gate;
    private final String rate;

    InspectSql(SchemaName schema) {
        String s = schema.name();
        this.inbox = """
                SELECT id, name, payload::text AS payload, dedup_key, inserted_at, count(*) OVER () AS total
                FROM %1$s.signals WHERE target_id = ? ORDER BY id LIMIT %2$d""".formatted(s, InstanceDetails.MAX_PENDING_SIGNALS);
        // the latest records, served by gen_durable_history_instance; returned oldest first
        this.history = """
                SELECT * FROM (SELECT id, step, attempt, outcome, started_at, finished_at, node, error, state::text AS state
                               FROM %1$s.gen_durable_history WHERE instance_id = ? ORDER BY id DESC LIMIT %2$d) h
                ORDER BY id""".formatted(s, InstanceDetails.MAX_HISTORY);
        this.children = """
                SELECT status::text AS status, count(*) AS n FROM %1$s.gen_durable
                WHERE parent_id = ? GROUP BY status""".formatted(s);
        this.gate = """
                SELECT (SELECT capacity FROM %1$s.gen_durable_bucket_configs WHERE kind = 'conc' AND name = ?) AS lim,
                       (SELECT count(*) FROM %1$s.gen_durable WHERE status = 'executing' AND concurrency_key = ?) AS executing,
                       (SELECT sum(available) FROM %1$s.gen_durable_buckets WHERE kind = 'conc' AND key = ?) AS available""".formatted(s);
        this.rate = """
                SELECT c.rate, c.capacity, b.available, b.last_refill
                FROM (SELECT 1) one
                LEFT JOIN %1$s.gen_durable_bucket_configs c ON c.kind = 'rate' AND c.name = ?
                LEFT JOIN (SELECT sum(available) AS available, max(last_refill) AS last_refill
                           FROM %1$s.gen_durable_buckets WHERE kind = 'rate' AND key = ?
                           HAVING count(*) > 0) b ON true""".formatted(s);
    }

    List<HistoryRow> history(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(history)) {
            ps.setLong(1, id);
            List<HistoryRow> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new HistoryRow(rs.getString("step"), rs.getInt("attempt"), rs.getString("outcome"),
                            Jdbc.instant(rs, "started_at"), Jdbc.instant(rs, "finished_at"), rs.getString("node"),
                            rs.getString("error"), rs.getString("state")));
                }
            }
            return rows;
        }
    }

    Inbox inbox(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(inbox)) {
            ps.setLong(1, id);
            List<PendingRow> rows = new ArrayList<>();
            long total = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new PendingRow(rs.getLong("id"), rs.getString("name"), rs.getString("payload"),
                            rs.getString("dedup_key"), Jdbc.instant(rs, "inserted_at")));
                    total = rs.getLong("total");
                }
            }
            return new Inbox(rows, total);
        }
    }

    /** @return the children's count per status name */
    Map<String, Long> children(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(children)) {
            ps.setLong(1, id);
            Map<String, Long> out = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString("status"), rs.getLong("n"));
                }
            }
            return out;
        }
    }

    GateRow gate(Connection c, String gateName, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(gate)) {
            ps.setString(1, gateName);
            ps.setString(2, key);
            ps.setString(3, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new GateRow(nullableDouble(rs, "lim"), rs.getLong("executing"), nullableDouble(rs, "available"));
            }
        }
    }

    RateRow rate(Connection c, String name, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(rate)) {
            ps.setString(1, name);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new RateRow(nullableDouble(rs, "rate"), nullableDouble(rs, "capacity"),
                        nullableDouble(rs, "available"), Jdbc.instant(rs, "last_refill"));
            }
        }
    }

    private static Double nullableDouble(ResultSet rs, String column) throws SQLException {
        double v = rs.getDouble(column);
        return rs.wasNull() ? null : v;
    }
}
