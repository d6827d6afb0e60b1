package io.gendurable.impl.keys;

import io.gendurable.impl.db.ClaimOrder;
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
 * The statements that keep the waiting rows of a K = 1 key out of the claim's way
 * ({@code key_blocked}, schema version 10). A K = 1 key runs one row at a time, so its backlog
 * waits anyway; blocked, a row leaves {@code gen_durable_pick} (so no claim reads it) for
 * {@code gen_durable_key_blocked}, where its key's rows wait in claim order to be let in one by one.
 *
 * <p>The lock discipline that keeps a key from being left with blocked rows and nothing to
 * unblock them (a lost wake-up): a key's blocked rows always have a way in, its <em>head</em>
 * (an unblocked runnable row, which a claim will take) or a row executing (which unblocks the
 * next when it leaves).
 * <ul>
 *   <li>{@link #block} blocks a key's rows only behind a head it holds {@code FOR SHARE} (the
 *       key's first row it could lock, of its first three): the head cannot be claimed, cancelled
 *       or rescheduled until the blocking has committed, so afterwards it is still runnable and
 *       unblocked.</li>
 *   <li>{@link #unblock} runs after whatever took a key's row out of {@code executing}, or
 *       cancelled its head, in a statement of its own that starts after that update has its
 *       row lock, so it sees every blocking that held the row. It unblocks the key's first
 *       blocked row unless another row of the key is executing (that one unblocks when it
 *       leaves).</li>
 *   <li>A row that goes back to runnable from {@code executing} (a reaped or released claim)
 *       needs nothing: it is unblocked itself, a head, and unblocks the next when it runs.</li>
 *   <li>{@link #blockedKeys} lists the keys with blocked rows, for the sweep that unblocks the
 *       first row of those with none executing: the backstop for a path that missed its unblock
 *       (and for a head rescheduled to later: its key's rows wait at most until the sweep).</li>
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
        // rows on, at most `walk` rows in all). Per K = 1 key with two or more of them, its first
        // three are locked FOR SHARE, skipping any locked elsewhere (a claim taking it, a flush): the
        // first locked is the key's head, which stays runnable and unblocked until this commits, and
        // the key's walked rows after it are locked SKIP LOCKED and blocked. The answer: the rows
        // blocked, and the rows that could have been (every walked row of such a key but its first).
        this.blockSql = """
                WITH RECURSIVE %2$s, walked AS MATERIALIZED (
                    SELECT c.* FROM walk_priorities wp CROSS JOIN LATERAL (
                        SELECT id, priority, eligible_at, concurrency_key, concurrency_name FROM %1$s g
                        WHERE status = 'runnable' AND NOT key_blocked AND queue = ? AND priority = wp.priority
                          AND eligible_at <= ?
                        ORDER BY eligible_at
                        LIMIT ?) c
                    WHERE wp.priority IS NOT NULL
                    LIMIT ?
                ), keyed AS MATERIALIZED (
                    SELECT id, concurrency_key,
                           row_number() OVER (PARTITION BY concurrency_key ORDER BY priority, eligible_at, id) AS rn,
                           count(*) OVER (PARTITION BY concurrency_key) AS n
                    FROM walked
                    WHERE concurrency_key IS NOT NULL AND NOT (concurrency_name = ANY (?::text[]))
                ), firsts AS MATERIALIZED (
                    SELECT g.id FROM %1$s g
                    WHERE g.id = ANY (ARRAY(SELECT id FROM keyed WHERE rn <= 3 AND n > 1))
                      AND g.status = 'runnable' AND NOT g.key_blocked
                    ORDER BY g.id
                    FOR SHARE OF g SKIP LOCKED
                ), heads AS MATERIALIZED (
                    SELECT DISTINCT ON (k.concurrency_key) k.concurrency_key, k.rn
                    FROM keyed k JOIN firsts f ON f.id = k.id
                    ORDER BY k.concurrency_key, k.rn
                ), held AS (
                    SELECT g.id FROM %1$s g
                    WHERE g.id = ANY (ARRAY(SELECT k.id FROM keyed k JOIN heads h ON h.concurrency_key = k.concurrency_key
                                            WHERE k.rn > h.rn))
                      AND g.status = 'runnable' AND NOT g.key_blocked
                    ORDER BY g.id
                    FOR NO KEY UPDATE OF g SKIP LOCKED
                ), blocked AS (
                    UPDATE %1$s g SET key_blocked = true
                    FROM held WHERE g.id = held.id
                    RETURNING 1
                )
                SELECT (SELECT count(*) FROM blocked) AS blocked, (SELECT count(*) FROM keyed WHERE rn > 1) AS blockable
                """.formatted(t, ClaimOrder.runnablePriorities("walk_priorities", t, ""));
        // Per key: nothing if a row of the key is executing (gen_durable_concurrency_active), else
        // its first blocked row in claim order (gen_durable_key_blocked), skipping a locked one.
        this.unblockSql = """
                WITH heads AS (
                -- fence: writes runnable rows only (the executing ones are read)
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
     * What one blocking pass did.
     *
     * @param blocked   the rows it blocked
     * @param blockable the rows it could have blocked (those of keys whose head it could not hold, or
     *                  that were locked elsewhere, were not): a pass that blocked none of some is worth
     *                  repeating, one that found none is not
     */
    public record Pass(int blocked, int blockable) {
    }

    /**
     * Blocks, among the first {@code walk} due rows that {@code queue}'s claim would read, the rows
     * of each K = 1 key after its head (its first row this pass could hold), which stays unblocked.
     * Run it in a transaction of its own.
     *
     * @param gateNames the configured gate names (their keys are not K = 1)
     */
    public Pass block(Connection c, String queue, Instant now, int walk, String[] gateNames) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(blockSql)) {
            ps.setString(1, queue);
            ps.setString(2, queue);
            ps.setString(3, queue);
            ps.setObject(4, Jdbc.ts(now));
            ps.setInt(5, walk);
            ps.setInt(6, walk);
            ps.setArray(7, Jdbc.texts(c, gateNames));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Pass(rs.getInt(1), rs.getInt(2));
            }
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
