package io.gendurable.impl.step;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;

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
 * Loads the inboxes of a whole claim set in ONE statement (no per-step loads). Index:
 * {@code signals_target}. Only rows the claim flagged as having signals are asked for. With
 * tracing on, each signal's stored sender context comes along (the step's span links to it); with
 * tracing off those two columns are not read.
 */
public final class InboxSql {
    private final String sql;
    private final String tracedSql;

    public InboxSql(SchemaName schema) {
        this.sql = statement(schema, "");
        this.tracedSql = statement(schema, ", traceparent, tracestate");
    }

    private static String statement(SchemaName schema, String traceColumns) {
        return """
                SELECT id, target_id, name, payload::text AS payload, dedup_key, inserted_at%s
                FROM %s
                WHERE target_id = ANY(?::bigint[])
                ORDER BY target_id, id
                """.formatted(traceColumns, schema.qualify("signals"));
    }

    /** @return the inbox load's SQL text, for plan checks ({@code EXPLAIN}); parameter: the target ids */
    public String sql() {
        return sql;
    }

    /**
     * One inbox entry; {@code traceparent}/{@code tracestate} are the W3C context stored when it
     * was sent (null when no span was current then, or when the load did not read them).
     */
    public record SignalRow(long id, long targetId, String name, String payloadJson, String dedupKey,
                            Instant insertedAt, String traceparent, String tracestate) {
    }

    /**
     * @param traced whether to read each signal's stored trace context (tracing on)
     * @return target id → its signals in delivery order
     */
    public Map<Long, List<SignalRow>> load(Connection c, Collection<Long> targets, boolean traced) throws SQLException {
        Map<Long, List<SignalRow>> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(traced ? tracedSql : sql)) {
            ps.setArray(1, Jdbc.longs(c, targets));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    SignalRow r = new SignalRow(rs.getLong("id"), rs.getLong("target_id"), rs.getString("name"),
                            rs.getString("payload"), rs.getString("dedup_key"), Jdbc.instant(rs, "inserted_at"),
                            traced ? rs.getString("traceparent") : null, traced ? rs.getString("tracestate") : null);
                    out.computeIfAbsent(r.targetId(), k -> new ArrayList<>()).add(r);
                }
            }
        }
        return out;
    }
}
