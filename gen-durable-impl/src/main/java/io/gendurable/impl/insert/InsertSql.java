package io.gendurable.impl.insert;

import io.gendurable.Inserted;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Unnest;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.gendurable.impl.db.UnnestColumn.bigint;
import static io.gendurable.impl.db.UnnestColumn.boolNotNull;
import static io.gendurable.impl.db.UnnestColumn.instant;
import static io.gendurable.impl.db.UnnestColumn.int4;
import static io.gendurable.impl.db.UnnestColumn.ordinal;
import static io.gendurable.impl.db.UnnestColumn.text;

/**
 * The insert statement family: any number of rows in ONE static statement (parallel arrays
 * through {@code unnest}), inserted in correlation-key order so racing batches meet at the
 * {@code gen_durable_correlation} unique index as a clean conflict, never a deadlock.
 * A conflict returns the live holder's id. Ids are drawn from the identity sequence in the
 * input CTE, so each answer maps back to its input position. Debounced rows are
 * {@link DebouncedInsertSql}'s.
 */
public final class InsertSql {
    /**
     * One row of the insert's input: the row, whether it goes in blocked behind its key's head, and
     * the worker its insert claims it for (null: it goes in runnable).
     */
    private record Input(Row row, boolean keyBlocked, String claimBy) {
    }

    /** The insert's input: its position ({@code ord}, how each answer maps back), then one column per field of {@link Row}. */
    private static final Unnest<Input> ROWS = Unnest.of(
            ordinal("ord"),
            text("fsm", i -> i.row().fsm()),
            int4("fsm_version", i -> i.row().fsmVersion()),
            text("step", i -> i.row().step()),
            text("state", i -> i.row().stateJson()),
            text("queue", i -> i.row().queue()),
            int4("priority", i -> i.row().priority()),
            instant("eligible_at", i -> i.row().eligibleAt()),
            text("correlation_key", i -> i.row().correlationKey()),
            text("correlation_scope", i -> i.row().correlationScope()),
            text("concurrency_key", i -> i.row().concurrencyKey()),
            text("rate_limit", i -> i.row().rateLimit()),
            int4("weight", i -> i.row().weight()),
            bigint("parent_id", i -> i.row().parentId()),
            text("traceparent", i -> i.row().traceparent()),
            text("tracestate", i -> i.row().tracestate()),
            bigint("step_timeout_ms", i -> i.row().stepTimeoutMillis()),
            boolNotNull("key_blocked", Input::keyBlocked),
            text("claim_by", Input::claimBy));

    // tests only: runs right before the fresh read of the holders of a batch's duplicates
    static volatile Runnable beforeHolderRead = () -> { };

    private final String sql;
    private final String holdersSql;
    private final String stampSql;

    public InsertSql(SchemaName schema) {
        String t = schema.instances();
        this.sql = """
                WITH input AS (
                -- fence: an insert that takes its row's claim stamps a fresh token
                    -- starts: the row is claimed by its insert (start-at-insert), unless its queue is
                    -- paused cluster-wide (one primary-key probe, only for such rows: AND evaluates in order)
                    SELECT nextval('%1$s_id_seq') AS id, x.*,
                           x.claim_by IS NOT NULL
                               AND NOT EXISTS (SELECT 1 FROM %5$s pq WHERE pq.queue = x.queue) AS starts
                    FROM (SELECT * FROM %3$s
                          ORDER BY correlation_key, ord) x
                ), ins AS (
                    -- arbiter: gen_durable_correlation (unique, partial on correlation_guard)
                    INSERT INTO %1$s (id, fsm, fsm_version, step, state, queue, priority, eligible_at,
                                      correlation_key, correlation_scope, concurrency_key, rate_limit, weight,
                                      parent_id, traceparent, tracestate, step_timeout_ms, key_blocked, inserted_at,
                                      updated_at, status, locked_by, lease_expires_at, claim_token)
                    SELECT id, fsm, fsm_version, step, state::jsonb, queue, priority, eligible_at::timestamptz,
                           correlation_key, correlation_scope::%2$s[], concurrency_key, rate_limit, weight,
                           parent_id, traceparent, tracestate, step_timeout_ms, key_blocked, ?, ?,
                           -- a row claimed by its insert (start-at-insert), as a claim leaves it
                           (CASE WHEN starts THEN 'executing' ELSE 'runnable' END)::%2$s,
                           CASE WHEN starts THEN claim_by END,
                           CASE WHEN starts THEN ?::timestamptz END,
                           CASE WHEN starts THEN nextval('%4$s') END
                    FROM input
                    ORDER BY correlation_key, ord
                    ON CONFLICT (correlation_guard) WHERE correlation_guard IS NOT NULL DO NOTHING
                    RETURNING id, correlation_guard, claim_token, attempt
                )
                -- a duplicate of an earlier row of this batch names it; a duplicate of a row outside the
                -- batch is answered by a fresh read after the statement (holdersSql): this statement's
                -- snapshot may still show a holder that ended while the insert waited on the index,
                -- not the one its conflict was with
                SELECT i.ord, ins.id AS inserted_id, ins.claim_token, ins.attempt,
                       (SELECT s.id FROM ins s WHERE ins.id IS NULL AND s.correlation_guard = i.correlation_key
                        ORDER BY s.id LIMIT 1) AS holder_id
                FROM input i LEFT JOIN ins ON ins.id = i.id
                ORDER BY i.ord
                """.formatted(t, schema.statusType(), ROWS.as("u"), schema.claimTokens(),
                schema.qualify("gen_durable_paused_queues"));
        // The holder of a key outside the batch, read after the insert's conflict: a holder that
        // committed while the insert waited on it is outside the statement's snapshot, and one the
        // snapshot shows may have ended since; this fresh read finds the live one (uses
        // gen_durable_correlation).
        this.holdersSql = "SELECT correlation_guard, id FROM " + t + " WHERE correlation_guard = ANY(?::text[])";
        // The lease of rows this transaction's insert claimed, stamped again (fenced by their tokens)
        // when the insert waited long: rows of this transaction, so nothing else holds them.
        this.stampSql = """
                UPDATE %1$s g SET lease_expires_at = ?
                FROM unnest(?::bigint[], ?::bigint[]) AS s(id, token)
                WHERE g.id = s.id AND g.claim_token = s.token AND g.status::text = 'executing'
                """.formatted(t);
    }

    /**
     * One row to insert; {@code correlationScope} is the array literal of status names;
     * {@code traceparent}/{@code tracestate} the W3C context of the span current at insert, or null;
     * {@code stepTimeoutMillis} the instance's own step timeout ({@code InsertOptions.stepTimeout},
     * 0: none), or null; {@code debounceKey} the instance's debounce key ({@code InsertOptions.debounce},
     * its {@code eligibleAt} then the end of its window), or null, and {@code debounceFirst} whether a
     * waiting instance of that key keeps its own state ({@code Debounce.State.FIRST}).
     */
    public record Row(String fsm, int fsmVersion, String step, String stateJson, String queue, int priority,
                      Instant eligibleAt, String correlationKey, String correlationScope, String concurrencyKey,
                      String rateLimit, int weight, Long parentId, String traceparent, String tracestate,
                      Long stepTimeoutMillis, String debounceKey, boolean debounceFirst) {
        /** A row without a debounce key; the fields as the canonical constructor's. */
        public Row(String fsm, int fsmVersion, String step, String stateJson, String queue, int priority,
                   Instant eligibleAt, String correlationKey, String correlationScope, String concurrencyKey,
                   String rateLimit, int weight, Long parentId, String traceparent, String tracestate,
                   Long stepTimeoutMillis) {
            this(fsm, fsmVersion, step, stateJson, queue, priority, eligibleAt, correlationKey, correlationScope,
                    concurrencyKey, rateLimit, weight, parentId, traceparent, tracestate, stepTimeoutMillis, null, false);
        }

        /** A row without a step timeout of its own; the fields as the canonical constructor's. */
        public Row(String fsm, int fsmVersion, String step, String stateJson, String queue, int priority,
                   Instant eligibleAt, String correlationKey, String correlationScope, String concurrencyKey,
                   String rateLimit, int weight, Long parentId, String traceparent, String tracestate) {
            this(fsm, fsmVersion, step, stateJson, queue, priority, eligibleAt, correlationKey, correlationScope,
                    concurrencyKey, rateLimit, weight, parentId, traceparent, tracestate, null);
        }
    }

    /**
     * Inserts the rows in one statement, none of them blocked.
     *
     * @return per input position: the answer, or null when the key's holder vanished before it
     * could be read (the caller retries those positions)
     */
    public Inserted[] insert(Connection c, List<Row> rows, Instant now) throws SQLException {
        return insert(c, rows, now, null);
    }

    /**
     * Inserts the rows in one statement; where the batch holds several rows of one K = 1 key (its
     * name not among {@code gateNames}) without a correlation key, the first in claim order goes in
     * as the key's head and those that could not run before it go in blocked behind it
     * ({@code key_blocked}, see {@code io.gendurable.impl.keys.KeySql}): the head is inserted by
     * the same statement, so the key has its way in when they commit, and a backlog inserted at
     * once never enters the claim's index.
     *
     * @param gateNames the configured gate names, or null to block nothing
     * @return per input position: the answer, or null when the key's holder vanished before it
     * could be read (the caller retries those positions)
     */
    public Inserted[] insert(Connection c, List<Row> rows, Instant now, Set<String> gateNames) throws SQLException {
        return insert(c, rows, now, gateNames, null, null, true).inserted();
    }

    /**
     * A batch from which PostgreSQL's JIT compiler is turned off for the rest of the transaction
     * (only in a transaction the engine owns). The statement's estimated cost grows with its rows
     * (the holder lookups are costed per row) and passes {@code jit_above_cost} near a thousand
     * rows: the server then compiles it on every execution, about 30 ms of a 40 ms insert of
     * 1,000 rows here, more than the insert itself (docs/performance.md).
     */
    static final int JIT_OFF_ROWS = 200;

    /** Sets {@code jit = off} for the rest of the transaction, where the server has the setting (one statement that cannot fail). */
    private static final String JIT_OFF_SQL = "SELECT set_config('jit', 'off', true) FROM pg_settings WHERE name = 'jit'";

    /**
     * What an insert answered: per input position, the {@link Inserted} (null when the key's holder
     * vanished before it could be read), and for a row its insert claimed, the claim's fencing
     * token (0 otherwise: tokens start at 1) and its attempt.
     */
    public record Answers(Inserted[] inserted, long[] claimTokens, int[] attempts) {
    }

    /**
     * Inserts the rows in one statement as {@link #insert(Connection, List, Instant, java.util.Set)}
     * does, and claims for {@code claimBy[i]} the row at position {@code i} where that is not null
     * (start-at-insert, see {@link InsertStarts}): status {@code executing}, that worker, a lease
     * until {@code leaseUntil} and a fresh fencing token, unless its queue is paused cluster-wide
     * (then it goes in runnable). Only rows due at {@code now}, without a concurrency key, rate
     * limit or correlation key, may be claimed so.
     *
     * @param claimBy        per position, the worker to claim the row for, or null; or null for none
     * @param leaseUntil     the claimed rows' lease
     * @param ownTransaction whether the engine owns the transaction: a large batch may then turn
     *                       the server's JIT compiler off for its rest ({@link #JIT_OFF_ROWS})
     * @return the answers, with the claims' tokens
     */
    public Answers insert(Connection c, List<Row> rows, Instant now, Set<String> gateNames, String[] claimBy,
                          Instant leaseUntil, boolean ownTransaction) throws SQLException {
        int n = rows.size();
        if (ownTransaction && n >= JIT_OFF_ROWS) {
            try (PreparedStatement ps = c.prepareStatement(JIT_OFF_SQL)) {
                ps.execute();
            }
        }
        Inserted[] out = new Inserted[n];
        long[] tokens = new long[n];
        int[] attempts = new int[n];
        List<Integer> unresolved = new ArrayList<>();
        boolean[] blocked = gateNames == null ? new boolean[n] : blockedBehindHeads(rows, gateNames);
        List<Input> input = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (rows.get(i).debounceKey() != null) {
                throw new IllegalArgumentException("row " + i + " is debounced: insert it with insertDebounced");
            }
            String by = claimBy == null ? null : claimBy[i];
            if (by != null && !startable(rows.get(i), now)) {
                throw new IllegalArgumentException("row " + i + " cannot be claimed by its insert: " + rows.get(i));
            }
            input.add(new Input(rows.get(i), blocked[i], by));
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int p = ROWS.bind(c, ps, 1, input);
            ps.setObject(p++, Jdbc.ts(now));
            ps.setObject(p++, Jdbc.ts(now));
            ps.setObject(p, leaseUntil == null ? null : Jdbc.ts(leaseUntil));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int i = rs.getInt("ord");
                    Long inserted = Jdbc.longOrNull(rs, "inserted_id");
                    Long holder = Jdbc.longOrNull(rs, "holder_id");
                    if (inserted != null) {
                        out[i] = new Inserted(inserted, false);
                        Long token = Jdbc.longOrNull(rs, "claim_token");
                        if (token != null) {
                            tokens[i] = token;
                            attempts[i] = rs.getInt("attempt");
                        }
                    } else if (holder != null) {
                        out[i] = new Inserted(holder, true);
                    } else {
                        unresolved.add(i);
                    }
                }
            }
        }
        if (!unresolved.isEmpty()) {
            if (ownTransaction) {
                // a lookup by an array of keys: planned without sequential scans, as the engine's
                // other transactions are (a caller's transaction keeps its own settings)
                Db.applyPlannerSettings(c);
            }
            resolveHolders(c, rows, unresolved, out);
        }
        return new Answers(out, tokens, attempts);
    }

    /**
     * @return whether an insert may claim this row: due at {@code now}, no concurrency key (its
     * admission needs a claim's checks), no rate limit, and no correlation key (its identity is
     * guarded by the statuses of its scope, which an {@code executing} insert would bypass)
     */
    public static boolean startable(Row r, Instant now) {
        return !r.eligibleAt().isAfter(now) && r.concurrencyKey() == null && r.rateLimit() == null
                && r.correlationKey() == null && r.debounceKey() == null;
    }

    /**
     * Per row: whether it goes in blocked. Among the rows of each K = 1 key that have no correlation
     * key (a row with one may be a duplicate that is not inserted, so it can be neither), the head is
     * the first in claim order {@code (priority, eligible_at)}, then input order; a row after it is
     * blocked unless it would be due before the head (a less urgent priority due earlier).
     */
    static boolean[] blockedBehindHeads(List<Row> rows, Set<String> gateNames) {
        boolean[] blocked = new boolean[rows.size()];
        Map<String, Integer> heads = new HashMap<>();
        Comparator<Row> claimOrder = Comparator.comparingInt(Row::priority).thenComparing(Row::eligibleAt);
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            if (k1(r, gateNames)) {
                heads.merge(r.concurrencyKey(), i, (a, b) -> claimOrder.compare(rows.get(b), rows.get(a)) < 0 ? b : a);
            }
        }
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            if (k1(r, gateNames)) {
                int head = heads.get(r.concurrencyKey());
                blocked[i] = i != head && !r.eligibleAt().isBefore(rows.get(head).eligibleAt());
            }
        }
        return blocked;
    }

    private static boolean k1(Row r, Set<String> gateNames) {
        String key = r.concurrencyKey();
        if (key == null || r.correlationKey() != null || r.debounceKey() != null) {
            return false;
        }
        return !gateNames.contains(LimitsConfig.nameOf(key));
    }

    private void resolveHolders(Connection c, List<Row> rows, List<Integer> positions, Inserted[] out)
            throws SQLException {
        String[] keys = positions.stream().map(i -> rows.get(i).correlationKey()).distinct().toArray(String[]::new);
        beforeHolderRead.run();
        Map<String, Long> holders = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(holdersSql)) {
            ps.setArray(1, Jdbc.texts(c, keys));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    holders.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        for (int i : positions) {
            Long holder = holders.get(rows.get(i).correlationKey());
            out[i] = holder == null ? null : new Inserted(holder, true);
        }
    }

    /** @return the statement text (for tests and docs) */
    public String sql() {
        return sql;
    }

    /** @param scope statuses as database names @return a {@code durable_status[]} array literal */
    public static String scopeLiteral(List<String> scope) {
        return "{" + String.join(",", scope) + "}";
    }

    /**
     * Stamps the lease of rows this transaction's insert claimed again.
     *
     * @param claims id → the fencing token the insert stamped
     * @param until  the new lease
     */
    public void stampLeases(Connection c, Map<Long, Long> claims, Instant until) throws SQLException {
        if (claims.isEmpty()) {
            return;
        }
        Long[] ids = new Long[claims.size()];
        Long[] tokens = new Long[claims.size()];
        int i = 0;
        for (Map.Entry<Long, Long> e : claims.entrySet()) {
            ids[i] = e.getKey();
            tokens[i++] = e.getValue();
        }
        try (PreparedStatement ps = c.prepareStatement(stampSql)) {
            ps.setObject(1, Jdbc.ts(until));
            ps.setArray(2, c.createArrayOf("bigint", ids));
            ps.setArray(3, c.createArrayOf("bigint", tokens));
            ps.executeUpdate();
        }
    }
}
