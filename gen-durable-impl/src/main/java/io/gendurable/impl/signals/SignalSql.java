package io.gendurable.impl.signals;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.trace.TraceContext;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Signal delivery, ONE statement: resolve the target among live rows (by id through the primary
 * key, or by key through {@code gen_durable_correlation}) → insert into the inbox
 * {@code ON CONFLICT DO NOTHING} (dedup per target, {@code signals_dedup}) → wake the target.
 * The wake puts its flip condition in a {@code CASE}, not in the {@code WHERE}: the UPDATE
 * always takes the target's row lock, so a delivery racing a park queues behind the park's
 * transaction and re-evaluates the CASE against the committed, parked row. A status-filtering
 * WHERE would skip the not-yet-parked row without waiting: the lost wake-up.
 * The target is locked when it is resolved, before the inbox insert: a flush that is ending the
 * row (and clearing its inbox) is waited for, and the re-check of the locked row then finds it
 * no longer live (no target). Resolved without the lock, the insert (whose foreign-key check
 * takes only a key-share lock) could store the signal into the inbox the flush has just cleared:
 * the caller would be told it was delivered, and no step would read it.
 * The signal row keeps the W3C context of the sender's current span (NULLs when none, as always
 * with tracing off): the step that is given the signal links its span to it (docs/tracing.md).
 */
public final class SignalSql {
    private final String byIdSql;
    private final String byKeySql;

    public SignalSql(SchemaName schema) {
        // Two static texts so each lookup keeps its index: the primary key, or gen_durable_correlation.
        this.byIdSql = statement(schema, "id = ?::bigint");
        this.byKeySql = statement(schema, "correlation_guard = ?::text");
    }

    private static String statement(SchemaName schema, String targetPredicate) {
        return """
                WITH target AS (
                    SELECT id FROM %1$s
                    WHERE %4$s AND status NOT IN ('done', 'failed', 'cancelled')
                    FOR NO KEY UPDATE
                ), ins AS (
                    INSERT INTO %2$s (target_id, name, payload, dedup_key, inserted_at, traceparent, tracestate)
                    SELECT id, ?, ?::jsonb, ?, ?, ?, ? FROM target
                    ON CONFLICT (target_id, dedup_key) DO NOTHING
                    RETURNING target_id
                ), wake AS (
                    UPDATE %1$s g
                    SET status = CASE WHEN g.status = 'awaiting_signal' AND ? = ANY (g.awaits)
                                      THEN 'runnable'::%3$s ELSE g.status END,
                        eligible_at = CASE WHEN g.status = 'awaiting_signal' AND ? = ANY (g.awaits)
                                           THEN ?::timestamptz ELSE g.eligible_at END,
                        updated_at = CASE WHEN g.status = 'awaiting_signal' AND ? = ANY (g.awaits)
                                          THEN ?::timestamptz ELSE g.updated_at END
                    FROM ins
                    WHERE g.id = ins.target_id
                    RETURNING g.id, g.queue, g.status = 'runnable' AS woken  -- a spurious poke is harmless
                )
                SELECT (SELECT count(*) FROM target) AS targets,
                       (SELECT count(*) FROM ins) AS inserted,
                       (SELECT queue FROM wake WHERE woken) AS woken_queue,
                       (SELECT id FROM wake WHERE woken) AS woken_id
                """.formatted(schema.instances(), schema.qualify("signals"), schema.statusType(), targetPredicate);
    }

    /**
     * What a delivery did.
     *
     * @param targetFound whether a live target matched
     * @param inserted    whether the signal was stored (false: a duplicate dedup key)
     * @param wokenQueue  the queue of the target when this delivery woke it, else null
     * @param wokenId     the target's id when this delivery woke it, else null
     */
    public record Delivery(boolean targetFound, boolean inserted, String wokenQueue, Long wokenId) {
    }

    /**
     * @param targetId the id, or null to address {@code correlationKey}
     * @param sender   the W3C context of the sender's current span ({@link TraceContext#NONE}: none)
     */
    public Delivery deliver(Connection c, Long targetId, String correlationKey, String name, String payloadJson,
                            String dedupKey, Instant now, TraceContext sender) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(targetId == null ? byKeySql : byIdSql)) {
            int p = 1;
            if (targetId == null) {
                ps.setString(p++, correlationKey);
            } else {
                ps.setLong(p++, targetId);
            }
            ps.setString(p++, name);
            ps.setString(p++, payloadJson);
            ps.setString(p++, dedupKey);
            ps.setObject(p++, Jdbc.ts(now));
            ps.setString(p++, sender.traceparent());
            ps.setString(p++, sender.tracestate());
            ps.setString(p++, name);
            ps.setString(p++, name);
            ps.setObject(p++, Jdbc.ts(now));
            ps.setString(p++, name);
            ps.setObject(p, Jdbc.ts(now));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Delivery(rs.getLong("targets") > 0, rs.getLong("inserted") > 0, rs.getString("woken_queue"),
                        Jdbc.longOrNull(rs, "woken_id"));
            }
        }
    }
}
