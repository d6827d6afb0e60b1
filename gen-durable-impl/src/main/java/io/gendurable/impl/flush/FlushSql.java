package io.gendurable.impl.flush;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.PrimitiveArrays;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.db.Unnest;
import io.gendurable.impl.flush.Transition.AwaitsOp;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.gendurable.impl.db.UnnestColumn.bigint;
import static io.gendurable.impl.db.UnnestColumn.enumName;
import static io.gendurable.impl.db.UnnestColumn.bigintNotNull;
import static io.gendurable.impl.db.UnnestColumn.boolNotNull;
import static io.gendurable.impl.db.UnnestColumn.int4NotNull;
import static io.gendurable.impl.db.UnnestColumn.micros;
import static io.gendurable.impl.db.UnnestColumn.text;

/**
 * The group-commit flush: the batch's rows locked in id order by one primary-key statement (two
 * flushes touching the same rows queue instead of deadlocking), every buffered outcome's
 * transition in ONE guarded {@code UPDATE … FROM unnest(…)}, then its riders as batched
 * statements in the same transaction ({@link FlushRiders}). Each row commits only while
 * {@code claim_token = the claim's token AND status = 'executing'} (the fencing token: unique per
 * claim, so no write of an earlier claim can match): a row whose guard fails is absent from the
 * answer, commits nothing, and is reported stale. Rows, and parents of terminal children, that
 * another transaction holds locked are skipped, never waited for: their outcomes are deferred.
 * Riders, over committed rows only: consume (progress deletes the exact awaited signal ids,
 * terminal outcomes clear the inbox; {@code signals_target}); the fan-out (every parent's
 * children in one insert, then each parent parks with the count that landed, a new fan-out
 * generation its children carry); the parent join (ended children decrement their parents, one
 * {@code −count} per parent, each child once and toward its own generation); the gate credit
 * (each committed row's slot returns to its counter); and the park recheck (a parked row
 * with an inbox signal it awaits and did not see wakes at once, in the same transaction as the
 * park, so a delivery racing it queues on the park's row lock and no wake-up is lost).
 */
public final class FlushSql {
    /**
     * The update's input: one row per outcome, one column per accessor of the {@linkplain Transition
     * row image}, in this order (the guard's {@code id, worker, claim_token} first).
     */
    static final Unnest<Transition> ROWS = Unnest.of(
            bigintNotNull("id", Transition::id),
            text("worker", t -> t.claim().worker()),
            bigintNotNull("claim_token", Transition::claimToken),
            text("status", t -> t.status().dbName()),
            text("step", Transition::step),
            boolNotNull("set_state", Transition::setsState),
            text("state", Transition::stateJson),
            enumName("attempt_op", Transition::attemptOp),
            micros("eligible_at", Transition::eligibleAt),
            boolNotNull("set_result", Transition::setsResult),
            text("result", Transition::resultJson),
            text("error", Transition::error),
            enumName("awaits_op", Transition::awaitsOp),
            text("awaits", t -> t.awaitsOp() == AwaitsOp.SET ? Jdbc.textArrayLiteral(t.awaits()) : null),
            micros("await_deadline", Transition::awaitDeadline),
            boolNotNull("set_rate", Transition::setsRate),
            text("rate_limit", Transition::rateLimit),
            int4NotNull("weight", Transition::weight),
            enumName("key_op", Transition::keyChange),
            text("new_key", Transition::newKey),
            boolNotNull("keep_lock", Transition::keepsClaim),
            micros("lease_until", Transition::leaseUntil));

    private final String lockSql;
    private final String updateSql;
    private final String existsSql;
    private final FlushRiders riders;

    /** @param statements the schema's statements @return its one flush statement */
    public static FlushSql in(Statements statements) {
        return statements.of(FlushSql.class, schema -> new FlushSql(schema, FlushRiders.in(statements, schema)));
    }

    private FlushSql(SchemaName schema, FlushRiders riders) {
        this.riders = riders;
        String t = schema.instances();
        String signals = schema.qualify("signals");
        // The batch's rows, and the parents its terminal children will decrement, locked in id
        // order by primary-key lookups before the update touches them, SKIPPING rows locked
        // elsewhere: a lock held outside the engine's claims (a caller's open JTA transaction that
        // signalled one of these rows, or a parent) must never make the whole group commit wait.
        // An outcome whose row or parent was not locked is deferred to a later flush
        // (Flushed.deferred). A statement of its own: joined into the update, the planner's
        // generic plan (the one a server-prepared statement settles on) re-runs the unnest once per
        // locked row, a quadratic join (~7 ms for 64 outcomes instead of ~0.7 ms).
        // Neither statement names status = 'executing' as such: that predicate matches the partial
        // index gen_durable_lease, and a plan over it reads every executing row, and every dead
        // entry a burn-down leaves in that index, per flush. The lock goes by primary key alone
        // (a row no longer ours is locked for nothing and then refused by the update's guard).
        // It also answers each row's K = 1 key (an ungated key of an executing row): a row that
        // leaves executing, or leaves its key, unblocks the key's next row (KeySql.unblock).
        this.lockSql = """
                SELECT g.id, CASE WHEN g.status::text = 'executing' AND g.concurrency_shard IS NULL
                                  THEN g.concurrency_key END AS k1_key,
                       CASE WHEN g.cancel_requested IS NOT NULL THEN COALESCE(g.parent_id, 0) END AS cancelling_parent
                FROM %1$s g
                WHERE g.id = ANY (?::bigint[])
                ORDER BY g.id
                FOR NO KEY UPDATE OF g SKIP LOCKED
                """.formatted(t);
        this.updateSql = """
                WITH u AS (
                    SELECT * FROM %5$s
                )
                UPDATE %1$s g
                -- a row whose cancel was requested while its step ran ends cancelled: the outcome is
                -- discarded, the claim, its slot and its key go (the riders credit and unblock them)
                SET status = CASE WHEN g.cancel_requested IS NOT NULL THEN 'cancelled' ELSE u.status END::%2$s,
                    step = CASE WHEN g.cancel_requested IS NOT NULL THEN g.step ELSE COALESCE(u.step, g.step) END,
                    state = CASE WHEN u.set_state AND g.cancel_requested IS NULL THEN u.state::jsonb ELSE g.state END,
                    attempt = CASE WHEN g.cancel_requested IS NOT NULL THEN g.attempt
                                   WHEN u.attempt_op = 'INCREMENT' THEN g.attempt + 1
                                   WHEN u.attempt_op = 'RESET' THEN 1 ELSE g.attempt END,
                    eligible_at = CASE WHEN g.cancel_requested IS NOT NULL THEN g.eligible_at
                                       ELSE COALESCE(%6$s, g.eligible_at) END,
                    result = CASE WHEN u.set_result AND g.cancel_requested IS NULL THEN u.result::jsonb ELSE g.result END,
                    -- an error is kept while the step retries; progress without one clears it
                    last_error = CASE WHEN g.cancel_requested IS NOT NULL THEN g.cancel_requested
                                      WHEN u.error IS NOT NULL THEN u.error
                                      WHEN u.attempt_op = 'INCREMENT' OR u.status = 'failed' THEN g.last_error END,
                    awaits = CASE WHEN g.cancel_requested IS NOT NULL THEN NULL
                                  WHEN u.awaits_op = 'SET' THEN u.awaits::text[] WHEN u.awaits_op = 'CLEAR' THEN NULL
                                  ELSE g.awaits END,
                    await_deadline = CASE WHEN g.cancel_requested IS NOT NULL THEN NULL
                                          WHEN u.awaits_op = 'SET' THEN %7$s
                                          WHEN u.awaits_op = 'CLEAR' THEN NULL ELSE g.await_deadline END,
                    rate_limit = CASE WHEN u.set_rate AND g.cancel_requested IS NULL THEN u.rate_limit ELSE g.rate_limit END,
                    weight = CASE WHEN u.set_rate AND g.cancel_requested IS NULL THEN u.weight ELSE g.weight END,
                    concurrency_key = CASE WHEN g.cancel_requested IS NOT NULL THEN g.concurrency_key
                                           WHEN u.key_op = 'RELEASE' THEN NULL WHEN u.key_op = 'SWITCH' THEN u.new_key
                                           ELSE g.concurrency_key END,
                    locked_by = CASE WHEN u.keep_lock AND g.cancel_requested IS NULL THEN g.locked_by END,
                    -- the fence: an inline continue is a new claim of its own, anything else leaves the claim
                    claim_token = CASE WHEN u.keep_lock AND g.cancel_requested IS NULL THEN nextval('%4$s') END,
                    lease_expires_at = CASE WHEN u.keep_lock AND g.cancel_requested IS NULL THEN %8$s END,
                    -- an inline continue keeps its slot, or takes the provisional -1 of a new gated key
                    concurrency_shard = CASE WHEN NOT u.keep_lock OR g.cancel_requested IS NOT NULL THEN NULL
                                             WHEN u.key_op = 'KEEP' THEN g.concurrency_shard
                                             WHEN u.key_op = 'SWITCH' THEN -1 END,
                    updated_at = ?
                FROM u
                -- the guard: the claim's fencing token (unique per claim, never reused); status compared
                -- as text so the partial lease index is no candidate
                WHERE g.id = u.id AND g.claim_token = u.claim_token AND g.locked_by = u.worker
                  AND g.status::text = 'executing'
                -- the answer names the claim the guard matched: (id, worker, the token it presented), so
                -- two outcomes of one row in one batch (a late one of a reaped claim and its re-claim's)
                -- are told apart by every rider and every answer
                RETURNING g.id, u.worker, u.claim_token,
                          u.keep_lock AND g.cancel_requested IS NULL
                              AND EXISTS (SELECT 1 FROM %3$s s WHERE s.target_id = g.id) AS has_signals,
                          g.claim_token AS new_token, g.cancel_requested IS NOT NULL AS cancelled
                """.formatted(t, schema.statusType(), signals, schema.claimTokens(), ROWS.as("t"),
                Unnest.timestamp("u.eligible_at"), Unnest.timestamp("u.await_deadline"), Unnest.timestamp("u.lease_until"));
        this.existsSql = "SELECT id FROM " + t + " WHERE id = ANY(?::bigint[])";
    }

    /**
     * What a flush committed.
     *
     * @param committed   the claims whose transition committed, as the guarded update matched them
     *                    (id, worker and token): any other outcome of the same row was stale
     * @param rewoken     id → queue of rows this flush made runnable besides the transitions
     *                    themselves: parks the recheck woke, parents whose join completed, fan-outs
     *                    none of whose children landed
     * @param readyQueues the queues that received due children or an unblocked row (a claim there finds them)
     * @param continuingWithSignals the committed inline continues whose inbox is not empty (the next step loads it)
     * @param continued   the claim of each committed inline continue → the new fencing token it stamped
     * @param deferred    the ids whose outcome was not written because their row, or the parent a
     *                    terminal child decrements, was locked by another transaction: write them
     *                    again in a later flush (they are neither committed nor stale)
     * @param cancelled   the committed claims whose row ended cancelled instead (a cancel was
     *                    requested while the step ran): the outcome itself was discarded
     */
    public record Flushed(Set<Transition.Claim> committed, Map<Long, String> rewoken,
                          Set<String> readyQueues, Set<Transition.Claim> continuingWithSignals,
                          Map<Transition.Claim, Long> continued, Set<Long> deferred,
                          Set<Transition.Claim> cancelled) {
        /** @return whether this outcome's own claim committed (not merely an outcome of the same row) */
        public boolean committed(Transition t) {
            return committed.contains(t.claim());
        }

        /** @return whether this outcome's claim committed as a cancel (requested while its step ran): its outcome was discarded */
        public boolean cancelled(Transition t) {
            return cancelled.contains(t.claim());
        }
    }

    /** @return the lock statement's text (for plan checks) */
    public String lockSql() {
        return lockSql;
    }

    /** @return the transition update's text (for plan checks) */
    public String updateSql() {
        return updateSql;
    }

    /**
     * Runs the transition and its riders; call inside one transaction. Outcomes whose row or
     * parent another transaction holds locked are not written (see {@link Flushed#deferred}).
     */
    public Flushed flush(Connection c, List<Transition> all, Instant now) throws SQLException {
        return flush(c, all, List.of(), now);
    }

    /**
     * The group commit, with the step history records of its outcomes: those of the outcomes that
     * commit are inserted in the same transaction, in one statement.
     */
    public Flushed flush(Connection c, List<Transition> all, List<StepHistory> history, Instant now) throws SQLException {
        Map<Long, String> k1Keys = new HashMap<>();
        // rows whose cancel was requested → their parent (0: none): they end cancelled, and a parent
        // awaiting its children is told, so it is locked as a terminal child's parent is
        Map<Long, Long> cancelling = new HashMap<>();
        Set<Long> locked = lock(c, all, k1Keys, cancelling, null);
        Set<Long> cancelParents = new HashSet<>();
        for (Transition r : all) {
            Long p = cancelling.get(r.id());
            if (p != null && p != 0 && r.joins() == null && !locked.contains(p)) {
                cancelParents.add(p);
            }
        }
        if (!cancelParents.isEmpty()) {
            locked.addAll(lock(c, List.of(), new HashMap<>(), new HashMap<>(), cancelParents));
        }
        // A parent not locked is held by another transaction (skipped: wait for a later flush), or
        // gone (deleted by the GC or a purge: nothing to wait for, its children end on their own).
        // Gone parents are told apart by one read, only when some parent was not locked.
        Set<Long> unlockedParents = new HashSet<>();
        for (Transition r : all) {
            Long p = r.joins() != null ? r.joins() : cancelling.get(r.id());
            if (p != null && p != 0 && !locked.contains(p)) {
                unlockedParents.add(p);
            }
        }
        if (!unlockedParents.isEmpty()) {
            locked.addAll(gone(c, unlockedParents));
        }
        List<Transition> rows = new ArrayList<>(all.size());
        Set<Long> deferred = new HashSet<>();
        for (Transition r : all) {
            Long p = cancelling.get(r.id());
            if (locked.contains(r.id()) && (r.joins() == null || locked.contains(r.joins()))
                    && (p == null || p == 0 || locked.contains(p))) {
                rows.add(r);
            } else {
                deferred.add(r.id());
            }
        }
        Set<Transition.Claim> withSignals = new HashSet<>();
        Map<Transition.Claim, Long> continued = new HashMap<>();
        Set<Transition.Claim> cancelled = new HashSet<>();
        // Every decision below is keyed by the claim the guarded update matched, never by the row id
        // alone: a stale outcome of a row whose re-claim commits in the same batch has no rider.
        Set<Transition.Claim> committed = rows.isEmpty() ? Set.of()
                : update(c, rows, now, withSignals, continued, cancelled);
        FlushRiders.Rode rode = riders.ride(c, rows, committed, cancelled, k1Keys, cancelling, history, now);
        return new Flushed(committed, rode.rewoken(), rode.readyQueues(), withSignals, continued, deferred, cancelled);
    }

    /**
     * @param cancelling filled with the locked rows whose cancel was requested → their parent (0: none)
     * @param more       further ids to lock (parents of rows being cancelled), or null
     * @return the ids among the outcomes' rows and their parents that this transaction now holds locked
     */
    private Set<Long> lock(Connection c, List<Transition> rows, Map<Long, String> k1Keys,
                                     Map<Long, Long> cancelling, Set<Long> more) throws SQLException {
        Set<Long> ids = new HashSet<>(rows.size() * 2);
        for (Transition r : rows) {
            ids.add(r.id());
            if (r.joins() != null) {
                ids.add(r.joins());
            }
        }
        if (more != null) {
            ids.addAll(more);
        }
        Set<Long> locked = new HashSet<>(ids.size() * 2);
        try (PreparedStatement ps = c.prepareStatement(lockSql)) {
            long[] array = new long[ids.size()];
            int i = 0;
            for (Long id : ids) {
                array[i++] = id;
            }
            ps.setArray(1, PrimitiveArrays.of(c, "bigint", array));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    locked.add(rs.getLong(1));
                    String key = rs.getString(2);
                    if (key != null) {
                        k1Keys.put(rs.getLong(1), key);
                    }
                    long parent = rs.getLong(3);
                    if (!rs.wasNull()) {
                        cancelling.put(rs.getLong(1), parent);
                    }
                }
            }
        }
        return locked;
    }

    /** @return those of {@code ids} that no row has (deleted) */
    private Set<Long> gone(Connection c, Set<Long> ids) throws SQLException {
        Set<Long> out = new HashSet<>(ids);
        try (PreparedStatement ps = c.prepareStatement(existsSql)) {
            ps.setArray(1, Jdbc.longs(c, ids));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.remove(rs.getLong(1));
                }
            }
        }
        return out;
    }

    private Set<Transition.Claim> update(Connection c, List<Transition> rows, Instant now,
                                                   Set<Transition.Claim> withSignals,
                                                   Map<Transition.Claim, Long> continued,
                                                   Set<Transition.Claim> cancelled) throws SQLException {
        int n = rows.size();
        Set<Transition.Claim> committed = new HashSet<>(n * 2);
        try (PreparedStatement ps = c.prepareStatement(updateSql)) {
            int p = ROWS.bind(c, ps, 1, rows);
            ps.setObject(p, Jdbc.ts(now));
            // the answer's (id, token) names an outcome's own claim (a token is one claim's): that
            // instance, rather than one built from the text read back per row
            Map<Long, Transition.Claim> byToken = new HashMap<>(n * 2);
            for (Transition t : rows) {
                byToken.put(t.claimToken(), t.claim());
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long id = rs.getLong(1);
                    long presented = rs.getLong(3);
                    Transition.Claim claim = byToken.get(presented);
                    if (claim == null || claim.id() != id) {
                        claim = new Transition.Claim(id, rs.getString(2), presented);
                    }
                    committed.add(claim);
                    if (rs.getBoolean(4)) {
                        withSignals.add(claim);
                    }
                    long token = rs.getLong(5);
                    if (!rs.wasNull()) {
                        continued.put(claim, token);
                    }
                    if (rs.getBoolean(6)) {
                        cancelled.add(claim);
                    }
                }
            }
        }
        return committed;
    }
}
