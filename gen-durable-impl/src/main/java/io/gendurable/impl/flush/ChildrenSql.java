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
 * parks with the count that actually landed, or goes straight on when none did, and starts a new
 * fan-out generation its landed children carry. {@code join}: ended children decrement their
 * parents, aggregated to one {@code −count} per parent per flush, parents locked in id order; a
 * child counts once, toward its own generation; a parent reaching zero becomes runnable.
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
        // Each fan-out is a new generation of its parent; the children that landed carry it, and
        // count toward that generation only (joinSql).
        this.parkSql = """
                WITH parked AS (
                    UPDATE %1$s g
                    SET children_pending = p.landed, fan_out = g.fan_out + 1,
                        status = CASE WHEN p.landed = 0 THEN 'runnable'::%2$s ELSE 'awaiting_children'::%2$s END
                    FROM unnest(?::bigint[], ?::int[]) AS p(id, landed)
                    WHERE g.id = p.id AND g.status = 'awaiting_children'
                    RETURNING g.id, g.queue, g.status::text AS status, g.fan_out
                ), stamped AS (
                    UPDATE %1$s c SET parent_fan_out = parked.fan_out
                    FROM parked
                    WHERE c.id = ANY(?::bigint[]) AND c.parent_id = parked.id
                )
                SELECT id, queue, status FROM parked
                """.formatted(t, schema.statusType());
        // A child counts once (joined), toward the fan-out that created it (parent_fan_out; NULL:
        // a child of an older version, which counts toward what its parent awaits), and only while
        // its parent awaits its children. The parents are locked in id order; the count never
        // goes below zero, so a batch never fails on the check.
        this.joinSql = """
                WITH ended AS (
                    UPDATE %1$s c SET joined = true
                    FROM unnest(?::bigint[]) AS e(id)
                    WHERE c.id = e.id AND c.parent_id IS NOT NULL AND NOT c.joined
                    RETURNING c.parent_id, c.parent_fan_out
                ), locked AS (
                    SELECT g.id, g.fan_out FROM %1$s g
                    WHERE g.id IN (SELECT parent_id FROM ended) AND g.status = 'awaiting_children'
                    ORDER BY g.id
                    FOR NO KEY UPDATE OF g
                ), done AS (
                    SELECT locked.id AS parent_id, count(*)::int AS n
                    FROM ended JOIN locked ON locked.id = ended.parent_id
                    WHERE ended.parent_fan_out IS NULL OR ended.parent_fan_out = locked.fan_out
                    GROUP BY locked.id
                )
                UPDATE %1$s g
                SET children_pending = greatest(g.children_pending - done.n, 0),
                    status = CASE WHEN g.children_pending - done.n <= 0 THEN 'runnable'::%2$s ELSE g.status END,
                    eligible_at = CASE WHEN g.children_pending - done.n <= 0 THEN ?::timestamptz ELSE g.eligible_at END,
                    updated_at = ?
                FROM done
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
    public Map<Long, String> park(Connection c, Map<Long, Integer> landed, List<Long> children) throws SQLException {
        Long[] ids = landed.keySet().toArray(new Long[0]);
        Integer[] counts = new Integer[ids.length];
        for (int i = 0; i < ids.length; i++) {
            counts[i] = landed.get(ids[i]);
        }
        return woken(c, parkSql, ps -> {
            ps.setArray(1, c.createArrayOf("bigint", ids));
            ps.setArray(2, Jdbc.ints(c, counts));
            ps.setArray(3, Jdbc.longs(c, children));
        });
    }

    /**
     * Counts ended children toward their parents' joins, one {@code −count} per parent: each child
     * once, and only toward the fan-out that created it, while its parent awaits its children.
     *
     * @param children the ended children (any id: rows with no parent, or that counted already, are ignored)
     * @return id → queue of the parents whose join completed
     */
    public Map<Long, String> join(Connection c, List<Long> children, Instant now) throws SQLException {
        return woken(c, joinSql, ps -> {
            ps.setArray(1, Jdbc.longs(c, children));
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
