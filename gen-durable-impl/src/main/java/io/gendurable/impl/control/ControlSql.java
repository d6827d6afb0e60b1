package io.gendurable.impl.control;

import io.gendurable.PausedQueue;
import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An operator's statements. Each action is one short transaction that locks the rows it changes
 * in id order (the engine's one lock order: the flush, the heartbeat and the releases take rows
 * the same way) and waits for a lock at most {@link #LOCK_WAIT}: a row a caller's open
 * transaction holds makes the action fail clearly rather than hang.
 */
final class ControlSql {
    /** How long an action waits for a row another transaction holds. */
    static final String LOCK_WAIT = "5s";
    static final String TERMINAL = "('done', 'failed', 'cancelled')";

    /** A row as an action sees it under its lock. */
    record Locked(long id, String status, Long parentId, String concurrencyKey, Integer concurrencyShard,
                  String correlationKey, String queue, String fsm, int fsmVersion, boolean leaseLive,
                  boolean cancelRequested) {
        /** @return whether a step may be running for it: executing under a lease not yet lapsed */
        boolean running() {
            return status.equals("executing") && leaseLive;
        }

        boolean terminal() {
            return status.equals("done") || status.equals("failed") || status.equals("cancelled");
        }
    }

    private final String probeSql;
    private final String parentsSql;
    private final String purgeSql;
    private final String descendantsSql;
    private final String lockSql;
    private final String cancelSql;
    private final String requestSql;
    private final String retrySql;
    private final String holderSql;
    private final String rescheduleSql;
    private final String pauseSql;
    private final String resumeSql;
    private final String pausedSql;

    ControlSql(SchemaName schema) {
        String t = schema.instances();
        String paused = schema.qualify("gen_durable_paused_queues");
        this.probeSql = "SELECT parent_id FROM " + t + " WHERE id = ?";
        this.parentsSql = "SELECT parent_id FROM " + t + " WHERE id = ANY(?::bigint[]) AND parent_id IS NOT NULL";
        // as the GC: an ended child is kept while its parent exists and is not done (a live parent
        // still reads it; a failed or cancelled one may be retried and read it again)
        this.purgeSql = """
                DELETE FROM %1$s g
                WHERE g.id = ANY(?::bigint[]) AND g.status IN %2$s
                  AND (g.parent_id IS NULL
                       OR COALESCE((SELECT p.status = 'done' FROM %1$s p WHERE p.id = g.parent_id), true))
                """.formatted(t, TERMINAL);
        // every descendant (a finished child may have live children of its own), the live ones kept
        this.descendantsSql = """
                WITH RECURSIVE d(id) AS (
                    SELECT id FROM %1$s WHERE parent_id = ?
                    UNION ALL
                    SELECT c.id FROM %1$s c JOIN d ON c.parent_id = d.id
                )
                SELECT g.id FROM d JOIN %1$s g ON g.id = d.id WHERE g.status NOT IN %2$s
                """.formatted(t, TERMINAL);
        this.lockSql = """
                SELECT id, status::text AS status, parent_id, concurrency_key, concurrency_shard, correlation_key, queue,
                       fsm, fsm_version, COALESCE(lease_expires_at >= ?, false) AS lease_live,
                       cancel_requested IS NOT NULL AS cancel_requested
                FROM %1$s WHERE id = ANY(?::bigint[]) ORDER BY id FOR NO KEY UPDATE
                """.formatted(t);
        // Out of executing, the claim's fields go with it: a running step's late outcome presents a
        // token no row holds any more and commits nothing.
        this.cancelSql = """
                UPDATE %1$s SET status = 'cancelled', last_error = COALESCE(cancel_requested, ?), locked_by = NULL,
                    lease_expires_at = NULL,
                    claim_token = NULL, concurrency_shard = NULL, awaits = NULL, await_deadline = NULL, key_blocked = false,
                    updated_at = ?
                WHERE id = ANY(?::bigint[]) AND status NOT IN %2$s
                RETURNING id
                """.formatted(t, TERMINAL);
        this.requestSql = """
                UPDATE %1$s SET cancel_requested = COALESCE(cancel_requested, ?), updated_at = ?
                -- fence: an operator's cancel request sets a flag only; the claim and its token stay
                WHERE id = ANY(?::bigint[]) AND status = 'executing'
                RETURNING id
                """.formatted(t);
        // A retry and a reschedule clear debounce_at: the row leaves its debounce key's waiting place
        // (gen_durable_debounce) even when the write's instant equals its insert's (one clock tick)
        this.retrySql = """
                UPDATE %1$s SET status = 'runnable', step = COALESCE(?, step), state = COALESCE(?::jsonb, state),
                    attempt = 1, result = NULL, cancel_requested = NULL, children_pending = 0, awaits = NULL, await_deadline = NULL,
                    eligible_at = ?, updated_at = ?, debounce_at = NULL
                WHERE id = ? AND status IN ('failed', 'cancelled')
                """.formatted(t);
        this.holderSql = "SELECT id FROM " + t + " WHERE correlation_guard = ?";
        this.rescheduleSql = """
                UPDATE %1$s SET eligible_at = COALESCE(?, eligible_at), priority = COALESCE(?, priority), updated_at = ?,
                    debounce_at = NULL
                WHERE id = ? AND status = 'runnable'
                """.formatted(t);
        this.pauseSql = """
                INSERT INTO %1$s (queue, paused_at, paused_by, reason) VALUES (?, ?, ?, ?)
                ON CONFLICT (queue) DO UPDATE SET paused_by = EXCLUDED.paused_by, reason = EXCLUDED.reason
                """.formatted(paused);
        this.resumeSql = "DELETE FROM " + paused + " WHERE queue = ?";
        this.pausedSql = "SELECT queue, paused_at, paused_by, reason FROM " + paused + " ORDER BY queue";
    }

    /** @return whether the row exists, and its parent (immutable, read without a lock) */
    Optional<Optional<Long>> probe(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(probeSql)) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(Optional.ofNullable(Jdbc.longOrNull(rs, "parent_id")))
                        : Optional.empty();
            }
        }
    }

    /** @return the parents of {@code ids} (immutable, read without a lock) */
    Set<Long> parents(Connection c, Collection<Long> ids) throws SQLException {
        Set<Long> out = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(parentsSql)) {
            ps.setArray(1, Jdbc.longs(c, ids));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    /** @return how many ended rows were deleted */
    int purge(Connection c, Collection<Long> ids) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(purgeSql)) {
            ps.setArray(1, Jdbc.longs(c, ids));
            return ps.executeUpdate();
        }
    }

    /** @return the live descendants of {@code id} */
    List<Long> liveDescendants(Connection c, long id) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(descendantsSql)) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }

    /** Sets this transaction's lock timeout to {@link #LOCK_WAIT}. */
    void boundLockWaits(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL lock_timeout = '" + LOCK_WAIT + "'");
        }
    }

    /** @return the rows, locked in id order (missing ones absent) */
    List<Locked> lock(Connection c, Collection<Long> ids, Instant now) throws SQLException {
        List<Locked> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(lockSql)) {
            ps.setObject(1, Jdbc.ts(now));
            ps.setArray(2, Jdbc.longs(c, ids));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new Locked(rs.getLong("id"), rs.getString("status"), Jdbc.longOrNull(rs, "parent_id"),
                            rs.getString("concurrency_key"), (Integer) rs.getObject("concurrency_shard"),
                            rs.getString("correlation_key"), rs.getString("queue"), rs.getString("fsm"),
                            rs.getInt("fsm_version"), rs.getBoolean("lease_live"), rs.getBoolean("cancel_requested")));
                }
            }
        }
        return rows;
    }

    /**
     * Asks the running steps of these executing rows to stop: the rows keep their claim, key and slot
     * until the step's outcome reaches a flush (which ends them cancelled) or their lease lapses (the
     * reaper then ends them cancelled).
     *
     * @return the ids whose cancel was requested
     */
    List<Long> requestCancel(Connection c, Collection<Long> ids, String reason, Instant now) throws SQLException {
        return endIds(c, requestSql, ids, reason, now);
    }

    /** @return the ids cancelled */
    List<Long> cancel(Connection c, Collection<Long> ids, String reason, Instant now) throws SQLException {
        return endIds(c, cancelSql, ids, reason, now);
    }

    /** Runs {@code statement} (reason, now, ids) @return the ids it returned */
    private static List<Long> endIds(Connection c, String statement, Collection<Long> ids, String reason, Instant now)
            throws SQLException {
        List<Long> done = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            ps.setString(1, reason);
            ps.setObject(2, Jdbc.ts(now));
            ps.setArray(3, Jdbc.longs(c, ids));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    done.add(rs.getLong(1));
                }
            }
        }
        return done;
    }

    /** @return whether the row went back to runnable */
    boolean retry(Connection c, long id, String step, String stateJson, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(retrySql)) {
            ps.setString(1, step);
            ps.setString(2, stateJson);
            ps.setObject(3, Jdbc.ts(now));
            ps.setObject(4, Jdbc.ts(now));
            ps.setLong(5, id);
            return ps.executeUpdate() == 1;
        }
    }

    /** @return the live holder of {@code key}, or -1 */
    long holder(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(holderSql)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    /** @return whether the runnable row changed */
    boolean reschedule(Connection c, long id, Instant runAt, Integer priority, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(rescheduleSql)) {
            ps.setObject(1, runAt == null ? null : Jdbc.ts(runAt), Types.TIMESTAMP_WITH_TIMEZONE);
            ps.setObject(2, priority, Types.INTEGER);
            ps.setObject(3, Jdbc.ts(now));
            ps.setLong(4, id);
            return ps.executeUpdate() == 1;
        }
    }

    void pause(Connection c, String queue, String principal, String reason, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(pauseSql)) {
            ps.setString(1, queue);
            ps.setObject(2, Jdbc.ts(now));
            ps.setString(3, principal);
            ps.setString(4, reason);
            ps.executeUpdate();
        }
    }

    /** @return whether the queue was paused */
    boolean resume(Connection c, String queue) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(resumeSql)) {
            ps.setString(1, queue);
            return ps.executeUpdate() == 1;
        }
    }

    /** @return the paused queues, by name */
    List<PausedQueue> paused(Connection c) throws SQLException {
        List<PausedQueue> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(pausedSql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(new PausedQueue(rs.getString(1), Jdbc.instant(rs, "paused_at"),
                        rs.getString(3), rs.getString(4)));
            }
        }
        return rows;
    }
}
