package io.gendurable.impl.keys;

import io.gendurable.impl.db.PickOrder;
import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The statements that keep the waiting rows of a busy K = 1 key out of the claim's way
 * ({@code key_blocked}, schema version 10). A runnable row whose unconfigured concurrency key has
 * a row executing cannot be claimed; blocked, it leaves {@code gen_durable_pick} (so no claim
 * reads it) for {@code gen_durable_key_blocked}, where its key's rows wait in pick order.
 *
 * <p>The lock discipline that keeps a key from being left with blocked rows and nothing to
 * unblock them (a lost wake-up):
 * <ul>
 *   <li>{@link #block} holds the key's executing row {@code FOR SHARE} while it blocks the key's
 *       rows: that row cannot leave {@code executing} until the blocking has committed.</li>
 *   <li>{@link #unblock} runs after whatever took a key's row out of {@code executing}, in a
 *       statement of its own that starts after that update has its row lock, so it sees every
 *       blocking that held the row. It unblocks the key's first blocked row unless another row of
 *       the key is executing (that one unblocks when it leaves).</li>
 *   <li>A row that goes back to runnable from {@code executing} (a reaped or released claim)
 *       needs nothing: it is unblocked itself, and unblocks the next one when it runs.</li>
 *   <li>{@link #blockedKeys} lists the keys with blocked rows, for the sweep that unblocks those
 *       left with none executing: the backstop for any path that missed its unblock.</li>
 * </ul>
 * Every lock taken here is {@code SKIP LOCKED}: these statements never wait for a row, so they
 * are in no deadlock cycle; a row skipped is blocked or unblocked by the next pass, or the sweep.
 */
public final class KeySql {
    private final String blockSql;
    private final String unblockSql;
    private final String blockedKeysSql;

    public KeySql(SchemaName schema) {
        String t = schema.instances();
        // The rows the queue's claim reads first (its loose priority scan, each priority from its due
        // rows on, at most `walk` rows in all), those of K = 1 keys, the keys' executing rows locked
        // FOR SHARE in id order, skipping any being written (a flush, a heartbeat: the next pass takes
        // them), then the walked rows of the keys held, locked SKIP LOCKED, blocked.
        this.blockSql = """
                WITH RECURSIVE %2$s, walked AS MATERIALIZED (
                    SELECT c.id, c.concurrency_key, c.concurrency_name FROM walk_priorities wp CROSS JOIN LATERAL (
                        SELECT id, concurrency_key, concurrency_name FROM %1$s g
                        WHERE status = 'runnable' AND NOT key_blocked AND queue = ? AND priority = wp.priority
                          AND eligible_at <= ?
                        ORDER BY eligible_at
                        LIMIT ?) c
                    WHERE wp.priority IS NOT NULL
                    LIMIT ?
                ), keyed AS MATERIALIZED (
                    SELECT id, concurrency_key FROM walked
                    WHERE concurrency_key IS NOT NULL AND NOT (concurrency_name = ANY (?::text[]))
                ), busy AS MATERIALIZED (
                    SELECT e.concurrency_key FROM %1$s e
                    WHERE e.concurrency_key IN (SELECT concurrency_key FROM keyed)
                      AND e.status = 'executing' AND e.concurrency_key IS NOT NULL AND e.concurrency_shard IS NULL
                    ORDER BY e.id
                    FOR SHARE OF e SKIP LOCKED
                ), held AS (
                    SELECT g.id FROM %1$s g
                    WHERE g.id IN (SELECT k.id FROM keyed k WHERE k.concurrency_key IN (SELECT concurrency_key FROM busy))
                      AND g.status = 'runnable' AND NOT g.key_blocked
                    ORDER BY g.id
                    FOR NO KEY UPDATE OF g SKIP LOCKED
                )
                UPDATE %1$s g SET key_blocked = true
                FROM held WHERE g.id = held.id
                """.formatted(t, PickOrder.runnablePriorities("walk_priorities", t, ""));
        // Per key: nothing if a row of the key is executing (gen_durable_concurrency_active), else
        // its first blocked row in pick order (gen_durable_key_blocked), skipping a locked one.
        this.unblockSql = """
                WITH heads AS (
                    SELECT h.id FROM (SELECT DISTINCT k FROM unnest(?::text[]) AS u(k) WHERE k IS NOT NULL) keys
                    CROSS JOIN LATERAL (
                        SELECT b.id FROM %1$s b
                        WHERE b.concurrency_key = keys.k AND b.status = 'runnable' AND b.key_blocked
                        ORDER BY b.priority, b.eligible_at, b.id
                        LIMIT 1
                        FOR NO KEY UPDATE OF b SKIP LOCKED) h
                    WHERE NOT EXISTS (SELECT 1 FROM %1$s e
                                      WHERE e.concurrency_key = keys.k AND e.concurrency_key IS NOT NULL
                                        AND e.status = 'executing' AND e.concurrency_shard IS NULL)
                )
                UPDATE %1$s g SET key_blocked = false
                FROM heads WHERE g.id = heads.id
                RETURNING g.queue
                """.formatted(t);
        // A loose index scan of gen_durable_key_blocked: one probe per key, from `after` on.
        this.blockedKeysSql = """
                WITH RECURSIVE k AS (
                    (SELECT concurrency_key FROM %1$s
                     WHERE status = 'runnable' AND key_blocked AND concurrency_key > ?
                     ORDER BY concurrency_key LIMIT 1)
                    UNION ALL
                    SELECT (SELECT n.concurrency_key FROM %1$s n
                            WHERE n.status = 'runnable' AND n.key_blocked AND n.concurrency_key > k.concurrency_key
                            ORDER BY n.concurrency_key LIMIT 1)
                    FROM k WHERE k.concurrency_key IS NOT NULL
                )
                SELECT concurrency_key FROM k WHERE concurrency_key IS NOT NULL LIMIT ?
                """.formatted(t);
    }

    /**
     * Blocks the due rows among the first {@code walk} that {@code queue}'s claim would read whose
     * K = 1 key has a row executing. Run it in a transaction of its own.
     *
     * @param gateNames the configured gate names (their keys are not K = 1)
     * @return how many rows it blocked
     */
    public int block(Connection c, String queue, Instant now, int walk, String[] gateNames) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(blockSql)) {
            ps.setString(1, queue);
            ps.setString(2, queue);
            ps.setString(3, queue);
            ps.setObject(4, Jdbc.ts(now));
            ps.setInt(5, walk);
            ps.setInt(6, walk);
            ps.setArray(7, Jdbc.texts(c, gateNames));
            return ps.executeUpdate();
        }
    }

    /**
     * Unblocks the first blocked row of each of {@code keys} that has no row executing. Call it
     * after the statement that took the keys' rows out of {@code executing}, in its transaction.
     *
     * @return the queue of each row unblocked (a claim there can take it now)
     */
    public List<String> unblock(Connection c, Collection<String> keys) throws SQLException {
        List<String> queues = new ArrayList<>();
        if (keys.isEmpty()) {
            return queues;
        }
        try (PreparedStatement ps = c.prepareStatement(unblockSql)) {
            ps.setArray(1, Jdbc.texts(c, keys.toArray(new String[0])));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    queues.add(rs.getString(1));
                }
            }
        }
        return queues;
    }

    /** @return up to {@code limit} keys that have blocked rows, in key order, after {@code after} ("" for the first) */
    public List<String> blockedKeys(Connection c, String after, int limit) throws SQLException {
        List<String> keys = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(blockedKeysSql)) {
            ps.setString(1, after);
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    keys.add(rs.getString(1));
                }
            }
        }
        return keys;
    }

    /** @return the blocking statement's text (for plan checks) */
    public String blockSql() {
        return blockSql;
    }

    /** @return the unblocking statement's text (for plan checks) */
    public String unblockSql() {
        return unblockSql;
    }
}
