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
 * {@code signals_target}. Only rows the claim flagged as having signals are asked for.
 */
public final class InboxSql {
    private final String sql;

    public InboxSql(SchemaName schema) {
        this.sql = """
                SELECT id, target_id, name, payload::text AS payload, dedup_key, inserted_at
                FROM %s
                WHERE target_id = ANY(?::bigint[])
                ORDER BY target_id, id
                """.formatted(schema.qualify("signals"));
    }

    /** @return the inbox load's SQL text, for plan checks ({@code EXPLAIN}); parameter: the target ids */
    public String sql() {
        return sql;
    }

    /** One inbox entry. */
    public record SignalRow(long id, long targetId, String name, String payloadJson, String dedupKey,
                            Instant insertedAt) {
    }

    /** @return target id → its signals in delivery order */
    public Map<Long, List<SignalRow>> load(Connection c, Collection<Long> targets) throws SQLException {
        Map<Long, List<SignalRow>> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, Jdbc.longs(c, targets));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    SignalRow r = new SignalRow(rs.getLong("id"), rs.getLong("target_id"), rs.getString("name"),
                            rs.getString("payload"), rs.getString("dedup_key"), Jdbc.instant(rs, "inserted_at"));
                    out.computeIfAbsent(r.targetId(), k -> new ArrayList<>()).add(r);
                }
            }
        }
        return out;
    }
}
