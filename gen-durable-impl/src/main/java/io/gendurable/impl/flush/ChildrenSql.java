package io.gendurable.impl.flush;

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
 * The fan-out / fan-in family. {@code load}: the children of a whole claim set in ONE statement
 * ({@code gen_durable_parent}). {@code park}: after the flush inserted the children, each parent
 * parks with the count that actually landed, or goes straight on when none did. {@code join}:
 * terminal children decrement their parents, aggregated to one {@code −count} per parent per
 * flush, parents locked in id order; a parent reaching zero becomes runnable.
 */
public final class ChildrenSql {
    private final String loadSql;
    private final String parkSql;
    private final String joinSql;

    public ChildrenSql(SchemaName schema) {
        String t = schema.instances();
        this.loadSql = """
                SELECT id, parent_id, fsm, status::text AS status, result::text AS result, last_error
                FROM %1$s WHERE parent_id = ANY(?::bigint[])
                ORDER BY parent_id, id
                """.formatted(t);
        this.parkSql = """
                UPDATE %1$s g
                SET children_pending = p.landed,
                    status = CASE WHEN p.landed = 0 THEN 'runnable'::%2$s ELSE 'awaiting_children'::%2$s END
                FROM unnest(?::bigint[], ?::int[]) AS p(id, landed)
                WHERE g.id = p.id AND g.status = 'awaiting_children'
                RETURNING g.id, g.queue, g.status::text
                """.formatted(t, schema.statusType());
        this.joinSql = """
                WITH done AS (
                    SELECT parent_id, count(*)::int AS n FROM unnest(?::bigint[]) AS d(parent_id) GROUP BY parent_id
                ), locked AS (
                    SELECT g.id FROM %1$s g JOIN done ON done.parent_id = g.id
                    WHERE g.status = 'awaiting_children'
                    ORDER BY g.id
                    FOR NO KEY UPDATE OF g
                )
                UPDATE %1$s g
                SET children_pending = g.children_pending - done.n,
                    status = CASE WHEN g.children_pending - done.n = 0 THEN 'runnable'::%2$s ELSE g.status END,
                    eligible_at = CASE WHEN g.children_pending - done.n = 0 THEN ?::timestamptz ELSE g.eligible_at END,
                    updated_at = ?
                FROM done JOIN locked ON locked.id = done.parent_id
                WHERE g.id = done.parent_id AND g.status = 'awaiting_children'
                RETURNING g.id, g.queue, g.status::text
                """.formatted(t, schema.statusType());
    }

    /** @return the children load's SQL text, for plan checks ({@code EXPLAIN}); parameter: the parent ids */
    public String loadSql() {
        return loadSql;
    }

    /** A child as loaded for its parent. */
    public record ChildRow(long id, long parentId, String fsm, String status, String resultJson, String lastError) {
    }

    /** @return parent id → its children, in id order */
    public Map<Long, List<ChildRow>> load(Connection c, Collection<Long> parents) throws SQLException {
        Map<Long, List<ChildRow>> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(loadSql)) {
            ps.setArray(1, Jdbc.longs(c, parents));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ChildRow r = new ChildRow(rs.getLong("id"), rs.getLong("parent_id"), rs.getString("fsm"),
                            rs.getString("status"), rs.getString("result"), rs.getString("last_error"));
                    out.computeIfAbsent(r.parentId(), k -> new ArrayList<>()).add(r);
                }
            }
        }
        return out;
    }

    /**
     * Parks each parent with the count of children that landed.
     *
     * @return id → queue of the parents that went straight on (none landed)
     */
    public Map<Long, String> park(Connection c, Map<Long, Integer> landed) throws SQLException {
        Long[] ids = landed.keySet().toArray(new Long[0]);
        Integer[] counts = new Integer[ids.length];
        for (int i = 0; i < ids.length; i++) {
            counts[i] = landed.get(ids[i]);
        }
        return woken(c, parkSql, ps -> {
            ps.setArray(1, c.createArrayOf("bigint", ids));
            ps.setArray(2, Jdbc.ints(c, counts));
        });
    }

    /**
     * Decrements the parents of terminal children, one {@code −count} per parent.
     *
     * @param parentIds one entry per terminal child (repeats aggregate)
     * @return id → queue of the parents whose join completed
     */
    public Map<Long, String> join(Connection c, List<Long> parentIds, Instant now) throws SQLException {
        return woken(c, joinSql, ps -> {
            ps.setArray(1, Jdbc.longs(c, parentIds));
            ps.setObject(2, Jdbc.ts(now));
            ps.setObject(3, Jdbc.ts(now));
        });
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private static Map<Long, String> woken(Connection c, String sql, Binder binder) throws SQLException {
        Map<Long, String> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if ("runnable".equals(rs.getString(3))) {
                        out.put(rs.getLong(1), rs.getString(2));
                    }
                }
            }
        }
        return out;
    }
}
