package io.gendurable.impl.gc;

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
 * GC of terminal rows: two steps in one short transaction. SELECT a batch of ids through
 * {@code gen_durable_gc} in termination order (skip-locked, sparing terminal children whose
 * parent has not finished: the parent is read by primary key), then DELETE by primary key: the
 * delete scales with the batch, never with the table.
 */
public final class GcSql {
    private final String selectSql;
    private final String deleteSql;

    public GcSql(SchemaName schema) {
        String t = schema.instances();
        this.selectSql = """
                SELECT g.id FROM %1$s g
                WHERE g.status IN ('done', 'failed') AND g.updated_at < ?
                  -- a scalar subquery, not NOT EXISTS: the planner turns an anti-join into a hash
                  -- join over a Seq Scan of the whole table; this stays a primary-key probe per child
                  -- a child is spared until its parent finishes (or is gone): a woken parent
                  -- (runnable, retrying its join step, parked again, running) still reads it
                  AND (g.parent_id IS NULL
                       OR COALESCE((SELECT p.status IN ('done', 'failed') FROM %1$s p WHERE p.id = g.parent_id),
                                   true))
                ORDER BY g.updated_at
                LIMIT ?
                FOR UPDATE OF g SKIP LOCKED  -- full strength: the rows are about to be deleted
                """.formatted(t);
        this.deleteSql = "DELETE FROM " + t + " WHERE id = ANY(?::bigint[])";
    }

    /** @return the GC's candidate SELECT, for plan checks ({@code EXPLAIN}); parameters: the cutoff, the batch */
    public String selectSql() {
        return selectSql;
    }

    /** @return how many terminal rows were deleted (at most {@code batch}) */
    public int sweep(Connection c, Instant cutoff, int batch) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(selectSql)) {
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
