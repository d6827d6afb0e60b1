package io.gendurable.impl.claim;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.ClaimOrder;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.step.ClaimedRow;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The claim: up to {@code limit} due runnable rows of one queue, in {@code (priority, eligible_at)}
 * order, read priority by priority (a loose index scan finds the queue's runnable priorities, so
 * rows not yet due at a more urgent priority cost one index probe, not a walk), locked in-scan with {@code FOR NO KEY UPDATE SKIP LOCKED} (a claim never waits, so
 * instance-row locks cannot join a deadlock cycle), flipped to {@code executing} with a lease.
 * Concurrency keys: a K = 1 key (its name, the stored {@code concurrency_name}, is not among
 * the gate names passed in; no config table is read) with an executing sibling is filtered
 * before the {@code LIMIT}, and at most one row per such key is taken per batch; the unique
 * {@code gen_durable_concurrency_active} index is the backstop for a cross-node race (the claim
 * then fails with a unique violation and the caller retries). A gated row gets the provisional
 * shard -1 (out of that index); the limiter admits it after the claim.
 * Every claim stamps a fresh fencing token ({@code claim_token}, from a sequence): the flush,
 * the heartbeat and the releases of this claim are guarded by it, so nothing written for an
 * earlier claim of the row can match.
 * Rows blocked behind their key ({@code key_blocked}, see {@code keys.KeySql}) are
 * not in the claim index and never read.
 * Only rows of an {@code (fsm, fsm_version)} this node registered are taken ({@code runnable}, the
 * registry's {@link FsmRegistry#claimKeys() claim keys}): a filter on the
 * rows the candidate scan reads (one comparison per row read, against a handful of keys), never an
 * index condition, so the scan and its order are unchanged. During a rolling upgrade a row of a
 * version an old node lacks is skipped there and waits, runnable, for a node that has it.
 * One statement, one round trip. Index: {@code gen_durable_pick}. Each row says whether it has
 * signals (a {@code signals_target} probe) or children (a {@code gen_durable_parent} probe), so
 * the inbox and children loads run only when one does.
 */
public final class ClaimSql {
    private final String sql;
    private final SchemaName schema;
    private final String pausedSql;
    private final String byIdSql;

    public ClaimSql(SchemaName schema) {
        this.schema = schema;
        this.pausedSql = "SELECT queue FROM " + schema.qualify("gen_durable_paused_queues");
        // Both claims clear debounce_at: a claimed row leaves its debounce key's waiting place
        // (gen_durable_debounce: runnable and updated_at = debounce_at) for good, whatever later
        // writes stamp (a retry's or an operator's write in the same clock tick as its insert)
        this.sql = """
                WITH RECURSIVE %5$s, cand AS (
                -- fence: takes new claims, stamping a fresh token each
                    -- the priorities in order, each read lazily: the outer LIMIT stops at the batch
                    SELECT c.* FROM prio CROSS JOIN LATERAL (
                        SELECT id, priority, eligible_at, concurrency_key,
                               (concurrency_key IS NOT NULL AND NOT (concurrency_name = ANY (?::text[]))) AS k1
                        FROM %1$s g
                        WHERE status = 'runnable' AND NOT key_blocked AND queue = ? AND priority = prio.priority
                          AND eligible_at <= ?
                          -- as a CASE, estimated at half the rows: as a comparison, an expression
                          -- without statistics is estimated at half a percent, and a large batch
                          -- would then sort the whole queue instead of walking the claim index
                          AND CASE WHEN (fsm || ':' || fsm_version) = ANY (?::text[]) THEN true ELSE false END
                          AND (concurrency_key IS NULL OR concurrency_name = ANY (?::text[])
                               OR NOT EXISTS (SELECT 1 FROM %1$s e
                                              WHERE e.status = 'executing' AND e.concurrency_key = g.concurrency_key
                                                AND e.concurrency_shard IS NULL))
                        ORDER BY eligible_at
                        LIMIT ?
                        FOR NO KEY UPDATE SKIP LOCKED) c
                    WHERE prio.priority IS NOT NULL
                    LIMIT ?
                ), chosen AS (
                    SELECT id, k1 FROM (
                        SELECT id, k1, row_number() OVER (PARTITION BY CASE WHEN k1 THEN concurrency_key END
                                                          ORDER BY priority, eligible_at, id) AS rn
                        FROM cand) x
                    WHERE NOT k1 OR rn = 1
                )
                UPDATE %1$s g
                SET status = 'executing', locked_by = ?, lease_expires_at = ?, updated_at = ?,
                    claim_token = nextval('%3$s'), debounce_at = NULL,
                    concurrency_shard = CASE WHEN g.concurrency_key IS NOT NULL AND NOT chosen.k1 THEN -1 END
                FROM chosen
                WHERE g.id = chosen.id
                %6$s""".formatted(schema.instances(), schema.qualify("signals"), schema.claimTokens(),
                schema.qualify("gen_durable_paused_queues"),
                // a paused queue has no runnable priorities (uncorrelated: one primary-key probe per claim)
                ClaimOrder.runnablePriorities("prio", schema.instances(), "\n       AND NOT EXISTS (SELECT 1 FROM "
                        + schema.qualify("gen_durable_paused_queues") + " pq WHERE pq.queue = ?)"),
                returning(schema));
        this.byIdSql = """
                UPDATE %1$s g
                -- fence: takes a new claim, stamping a fresh token
                SET status = 'executing', locked_by = ?, lease_expires_at = ?, updated_at = ?,
                    claim_token = nextval('%2$s'), debounce_at = NULL
                WHERE g.id = ? AND g.status::text = 'runnable' AND NOT g.key_blocked AND g.eligible_at <= ?
                  AND g.concurrency_key IS NULL AND g.rate_limit IS NULL
                  AND NOT EXISTS (SELECT 1 FROM %3$s pq WHERE pq.queue = g.queue)
                  AND (g.fsm || ':' || g.fsm_version) = ANY (?::text[])
                %4$s""".formatted(schema.instances(), schema.claimTokens(), schema.qualify("gen_durable_paused_queues"),
                returning(schema));
    }

    /** The claimed rows' columns, as {@link #read} reads them (by position: keep the order): one text for both claims. */
    private static String returning(SchemaName schema) {
        return """
                RETURNING g.id, g.fsm, g.fsm_version, g.step, g.state::text AS state, g.attempt,
                          g.priority, (extract(epoch FROM g.eligible_at) * 1000000)::bigint AS eligible_us,
                          (extract(epoch FROM g.inserted_at) * 1000000)::bigint AS inserted_us,
                          g.correlation_key, g.concurrency_key, g.awaits,
                          EXISTS (SELECT 1 FROM %2$s s WHERE s.target_id = g.id) AS has_signals, g.parent_id,
                          EXISTS (SELECT 1 FROM %1$s c WHERE c.parent_id = g.id) AS has_children,
                          g.rate_limit, g.weight, g.concurrency_shard IS NOT NULL AS gated, g.last_error, g.claim_token,
                          g.traceparent, g.tracestate, g.step_timeout_ms,
                          (extract(epoch FROM g.lease_expires_at) * 1000000)::bigint AS lease_us
                """.formatted(schema.instances(), schema.qualify("signals"));
    }

    /** @return the queues paused cluster-wide ({@code gen_durable_paused_queues}) */
    public Set<String> pausedQueues(Connection c) throws SQLException {
        Set<String> queues = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(pausedSql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                queues.add(rs.getString(1));
            }
        }
        return queues;
    }

    /**
     * @param runnable the {@code fsm:version} keys this node runs ({@link FsmRegistry#claimKeys()}):
     *                 rows of any other are left alone
     * @return the claimed rows, sorted in claim order (their queue is {@code queue}: not read back per row)
     */
    public List<ClaimedRow> claim(Connection c, String queue, String worker, int limit, Instant now,
                                  Instant leaseUntil, String[] gateNames, String[] runnable) throws SQLException {
        List<ClaimedRow> rows = new ArrayList<>(limit);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Array gates = Jdbc.texts(c, gateNames);
            ps.setString(1, queue);
            ps.setString(2, queue);
            ps.setString(3, queue);
            ps.setArray(4, gates);
            ps.setString(5, queue);
            ps.setObject(6, Jdbc.ts(now));
            ps.setArray(7, Jdbc.texts(c, runnable));
            ps.setArray(8, gates);
            ps.setInt(9, limit);
            ps.setInt(10, limit);
            ps.setString(11, worker);
            ps.setObject(12, Jdbc.ts(leaseUntil));
            ps.setObject(13, Jdbc.ts(now));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(read(rs, queue));
                }
            }
        }
        // RETURNING has no order: restore the claim order for dispatch.
        rows.sort(Comparator.comparingInt(ClaimedRow::priority).thenComparing(ClaimedRow::eligibleAt)
                .thenComparingLong(ClaimedRow::id));
        return rows;
    }

    /**
     * Claims one row by id for {@code worker}: a row a signal has just woken, in the signal's
     * transaction (start-at-insert's counterpart for a wake-up). Only a row that needs no claim's
     * checks is taken: due, runnable, not blocked, without a concurrency key or a rate limit on its
     * step, its queue not paused cluster-wide. One primary-key update (the status is compared as
     * text so that no partial index over runnable rows matches: on a small table the planner would
     * rather walk the claim index than probe the primary key). {@code queue} is the queue
     * the delivery read from the row it locked (and still holds locked), not re-checked here. A row of
     * an {@code (fsm, version)} not in {@code runnable} is not taken (a node that has it claims it).
     *
     * @return the claimed row, or null when the row is not claimable so
     */
    public ClaimedRow claimById(Connection c, long id, String queue, String worker, Instant now, Instant leaseUntil,
                                String[] runnable) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(byIdSql)) {
            ps.setString(1, worker);
            ps.setObject(2, Jdbc.ts(leaseUntil));
            ps.setObject(3, Jdbc.ts(now));
            ps.setLong(4, id);
            ps.setObject(5, Jdbc.ts(now));
            ps.setArray(6, Jdbc.texts(c, runnable));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? read(rs, queue) : null;
            }
        }
    }

    /** Reads a row of {@link #returning}, by position (by name, pgjdbc looks each label up per row). */
    private static ClaimedRow read(ResultSet rs, String queue) throws SQLException {
        return new ClaimedRow(rs.getLong(1), rs.getString(2), rs.getInt(3),
                rs.getString(4), rs.getString(5), rs.getInt(6), queue,
                rs.getInt(7), Jdbc.micros(rs.getLong(8)),
                Jdbc.micros(rs.getLong(9)),
                rs.getString(10), rs.getString(11),
                awaits(rs.getArray(12)), rs.getBoolean(13),
                Jdbc.longOrNull(rs, 14), rs.getBoolean(15),
                rs.getString(16), rs.getInt(17), rs.getBoolean(18),
                rs.getString(19), rs.getLong(20),
                rs.getString(21), rs.getString(22), Jdbc.micros(rs.getLong(24)),
                Jdbc.longOrNull(rs, 23));
    }

    /** @return the claim's SQL text, for plan checks ({@code EXPLAIN}); parameters in the order {@link #claim} binds them */
    public String sql() {
        return sql;
    }

    /** @return the text of {@link #claimById}, for plan checks; parameters in the order it binds them */
    public String byIdSql() {
        return byIdSql;
    }

    /** @return the schema the statement was built for */
    public SchemaName schema() {
        return schema;
    }

    private static List<String> awaits(Array a) throws SQLException {
        return a == null ? List.of() : List.of((String[]) a.getArray());
    }
}
