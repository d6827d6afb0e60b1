package io.gendurable.impl.gc;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * GC of terminal rows: two steps in one short transaction. SELECT a batch of ids through
 * {@code gen_durable_gc_done} or {@code gen_durable_gc_failed} in termination order (skip-locked, sparing terminal children whose
 * parent's row still exists: the parent is probed by primary key), then DELETE by primary key: the
 * delete scales with the batch, never with the table.
 */
public final class GcSql {
    /** The two sweeps, each with its own retention and partial index. */
    public enum Kind {
        /** {@code done} rows, through {@code gen_durable_gc_done} */
        DONE("g.status = 'done'"),
        /** {@code failed} and {@code cancelled} rows, through {@code gen_durable_gc_failed} */
        FAILED("g.status IN ('failed', 'cancelled')");

        private final String predicate;

        Kind(String predicate) {
            this.predicate = predicate;
        }
    }

    private final Map<Kind, String> selectSql = new EnumMap<>(Kind.class);
    private final String deleteSql;
    private final String historySql;

    public GcSql(SchemaName schema) {
        String t = schema.instances();
        for (Kind kind : Kind.values()) {
            selectSql.put(kind, """
                    SELECT g.id FROM %1$s g
                    WHERE %2$s AND g.updated_at < ?
                      -- a scalar subquery, not NOT EXISTS: the planner turns an anti-join into a hash
                      -- join over a Seq Scan of the whole table; this stays a primary-key probe per child
                      -- a child is spared while its parent exists and is not done: a live parent still
                      -- reads it, and a failed or cancelled one may be retried and read it again. Only
                      -- 'done' frees it, and done is final (nothing retries a done row), so reading it
                      -- unlocked is safe: a retry racing this select cannot make a spared child deletable
                      AND (g.parent_id IS NULL
                           OR COALESCE((SELECT p.status = 'done' FROM %1$s p WHERE p.id = g.parent_id), true))
                    ORDER BY g.updated_at
                    LIMIT ?
                    FOR UPDATE OF g SKIP LOCKED  -- full strength: the rows are about to be deleted
                    """.formatted(t, kind.predicate));
        }
        this.deleteSql = "DELETE FROM " + t + " WHERE id = ANY(?::bigint[])";
        String h = schema.qualify("gen_durable_history");
        this.historySql = "DELETE FROM " + h + " WHERE id IN (SELECT id FROM " + h
                + " WHERE finished_at < ? ORDER BY finished_at LIMIT ?)";
    }

    /**
     * @param kind which sweep
     * @return its candidate SELECT, for plan checks ({@code EXPLAIN}); parameters: the cutoff, the batch
     */
    public String selectSql(Kind kind) {
        return selectSql.get(kind);
    }

    /** @return how many step history records older than {@code cutoff} were deleted (at most {@code batch}) */
    public int sweepHistory(Connection c, Instant cutoff, int batch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(historySql)) {
            ps.setObject(1, Jdbc.ts(cutoff));
            ps.setInt(2, batch);
            return ps.executeUpdate();
        }
    }

    /** @return how many terminal rows were deleted (at most {@code batch}) */
    public int sweep(Connection c, Kind kind, Instant cutoff, int batch) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(selectSql.get(kind))) {
            ps.setObject(1, Jdbc.ts(cutoff));
            ps.setInt(2, batch);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        if (ids.isEmpty()) {
            return 0;
        }
        try (PreparedStatement ps = c.prepareStatement(deleteSql)) {
            ps.setArray(1, Jdbc.longs(c, ids));
            return ps.executeUpdate();
        }
    }
}
