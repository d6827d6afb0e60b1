package io.gendurable.impl.flush;

import io.gendurable.Inserted;
import io.gendurable.TransitionOptions.KeyChange;
import io.gendurable.impl.admission.BucketSql;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.db.Unnest;
import io.gendurable.impl.insert.InsertSql;
import io.gendurable.impl.keys.KeySql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.gendurable.impl.db.UnnestColumn.bigint;
import static io.gendurable.impl.db.UnnestColumn.int4;
import static io.gendurable.impl.db.UnnestColumn.micros;
import static io.gendurable.impl.db.UnnestColumn.text;

/**
 * The flush's riders ({@link FlushSql}): the statements that follow the guarded update in the same
 * transaction, over the rows it committed: consume, the K = 1 unblock, the fan-out, the parent
 * join, the gate credit, the park recheck and the step history.
 */
final class FlushRiders {
    /** The step history's input: one row per record of a committed outcome. */
    static final Unnest<StepHistory> HISTORY = Unnest.of(
            bigint("instance_id", StepHistory::instanceId),
            text("step", StepHistory::step),
            int4("attempt", StepHistory::attempt),
            text("outcome", StepHistory::outcome),
            micros("started_at", StepHistory::startedAt),
            micros("finished_at", StepHistory::finishedAt),
            text("node", StepHistory::node),
            text("error", StepHistory::error),
            text("state", StepHistory::stateJson));

    // rounds of a fan-out's insert for children whose key's holder ended mid-statement (then: not landed)
    private static final int FAN_OUT_ROUNDS = 3;

    private final String historySql;
    private final String consumeSql;
    private final String recheckSql;
    private final InsertSql insertSql;
    private final ChildrenSql childrenSql;
    private final BucketSql bucketSql;
    private final KeySql keySql;

    /** @param statements the schema's statements @param schema the schema @return the riders over it */
    static FlushRiders in(Statements statements, SchemaName schema) {
        return new FlushRiders(schema, statements.of(InsertSql.class, InsertSql::new),
                statements.of(BucketSql.class, BucketSql::new), statements.of(ChildrenSql.class, ChildrenSql::new),
                statements.of(KeySql.class, KeySql::new));
    }

    private FlushRiders(SchemaName schema, InsertSql insertSql, BucketSql bucketSql, ChildrenSql childrenSql, KeySql keySql) {
        this.keySql = keySql;
        this.insertSql = insertSql;
        this.bucketSql = bucketSql;
        this.childrenSql = childrenSql;
        String t = schema.instances();
        String signals = schema.qualify("signals");
        this.historySql = "INSERT INTO " + schema.qualify("gen_durable_history")
                + " (instance_id, step, attempt, outcome, started_at, finished_at, node, error, state)\n"
                + "SELECT instance_id, step, attempt, outcome, " + Unnest.timestamp("started_at") + ", " + Unnest.timestamp("finished_at") + ", node, error, state::jsonb FROM "
                + HISTORY.as("h");
        // (target, NULL) clears a whole inbox; (target, id) deletes one consumed signal.
        this.consumeSql = """
                DELETE FROM %1$s s
                USING unnest(?::bigint[], ?::bigint[]) AS c(target_id, signal_id)
                WHERE s.target_id = c.target_id AND (c.signal_id IS NULL OR s.id = c.signal_id)
                """.formatted(signals);
        this.recheckSql = """
                UPDATE %1$s g
                SET status = 'runnable', eligible_at = ?, updated_at = ?
                WHERE g.id = ANY(?::bigint[]) AND g.status = 'awaiting_signal'
                  AND EXISTS (
                      SELECT 1 FROM %2$s s
                      WHERE s.target_id = g.id AND s.name = ANY (g.awaits)
                        AND NOT EXISTS (SELECT 1 FROM unnest(?::bigint[], ?::bigint[]) AS p(target_id, signal_id)
                                        WHERE p.target_id = s.target_id AND p.signal_id = s.id))
                RETURNING g.id, g.queue
                """.formatted(t, signals);
    }

    /**
     * What the riders made runnable. @param rewoken id → queue of rows made runnable (parks the
     * recheck woke, parents whose join completed, fan-outs none of whose children landed)
     * @param readyQueues the queues that received due children or an unblocked row
     */
    record Rode(Map<Long, String> rewoken, Set<String> readyQueues) {
    }

    /**
     * Runs every rider over the committed rows.
     *
     * @param rows       the rows the update was given
     * @param committed  the claims it committed
     * @param cancelled  those of them that ended cancelled (their outcome discarded)
     * @param k1Keys     row id → its K = 1 key, as the lock read it
     * @param cancelling row id → its parent (0: none), for rows whose cancel was requested
     * @param history    the step history records of the batch's outcomes
     * @return what they made runnable
     */
    Rode ride(Connection c, List<Transition> rows, Set<Transition.Claim> committed, Set<Transition.Claim> cancelled,
              Map<Long, String> k1Keys, Map<Long, Long> cancelling, List<StepHistory> history, Instant now)
            throws SQLException {
        List<Long> consumeTargets = new ArrayList<>();
        List<Long> consumeIds = new ArrayList<>();
        List<Long> parked = new ArrayList<>();
        List<Long> presentedTargets = new ArrayList<>();
        List<Long> presentedIds = new ArrayList<>();
        for (Transition r : rows) {
            if (!committed.contains(r.claim())) {
                continue;
            }
            if (r instanceof Transition.Finish || cancelled.contains(r.claim())) {
                consumeTargets.add(r.id());  // the whole inbox
                consumeIds.add(null);
                continue;  // a cancelled row parks nothing
            } else {
                for (Long s : r.consume()) {
                    consumeTargets.add(r.id());
                    consumeIds.add(s);
                }
            }
            if (r instanceof Transition.Park park) {
                parked.add(r.id());
                for (Long s : park.presented()) {
                    presentedTargets.add(r.id());
                    presentedIds.add(s);
                }
            }
        }
        if (!consumeTargets.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(consumeSql)) {
                ps.setArray(1, Jdbc.longs(c, consumeTargets));
                ps.setArray(2, Jdbc.longs(c, consumeIds));
                ps.executeUpdate();
            }
        }
        Map<Long, String> rewoken = new HashMap<>();
        Set<String> readyQueues = new HashSet<>();
        // A K = 1 key whose row left executing (or left the key) lets its next blocked row in: a
        // statement after the update, so it sees every blocking that held the row (KeySql).
        Set<String> freedKeys = new HashSet<>();
        for (Transition r : rows) {
            String key = k1Keys.get(r.id());
            if (key != null && committed.contains(r.claim()) && (cancelled.contains(r.claim())
                    || !(r.keepsClaim() && r.keyChange() == KeyChange.KEEP))) {
                freedKeys.add(key);
            }
        }
        if (!freedKeys.isEmpty()) {
            readyQueues.addAll(keySql.unblock(c, freedKeys));
        }
        Set<Transition.Claim> progressed = committed;
        if (!cancelled.isEmpty()) {
            progressed = new HashSet<>(committed);
            progressed.removeAll(cancelled);  // a cancelled row's fan-out is discarded with its outcome
        }
        fanOut(c, rows, progressed, now, rewoken, readyQueues);
        List<Long> joining = new ArrayList<>();
        for (Transition r : rows) {
            if (!committed.contains(r.claim())) {
                continue;
            }
            if (r.joins() != null || cancelled.contains(r.claim()) && cancelling.getOrDefault(r.id(), 0L) != 0) {
                joining.add(r.id());  // an ended child counts (a cancelled one as finished)
            }
        }
        if (!joining.isEmpty()) {
            rewoken.putAll(childrenSql.join(c, joining, now));
        }
        // Gate slots return in the same transaction the rows leave executing: the reconciler's
        // truth (executing rows) and the counters can never disagree about a committed outcome.
        // (A Redis slot is not in-band: the engine credits it after this commit.)
        List<Limiter.Slot> slots = new ArrayList<>();
        for (Transition r : rows) {
            if (r.slot() != null && r.slot().inBand() && committed.contains(r.claim())) {
                slots.add(r.slot());
            }
        }
        if (!slots.isEmpty()) {
            bucketSql.credit(c, slots);
        }
        if (!parked.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(recheckSql)) {
                ps.setObject(1, Jdbc.ts(now));
                ps.setObject(2, Jdbc.ts(now));
                ps.setArray(3, Jdbc.longs(c, parked));
                ps.setArray(4, Jdbc.longs(c, presentedTargets));
                ps.setArray(5, Jdbc.longs(c, presentedIds));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rewoken.put(rs.getLong(1), rs.getString(2));
                    }
                }
            }
        }
        if (!history.isEmpty()) {
            Set<Transition.Claim> written = progressed;
            List<StepHistory> kept = history.stream().filter(h -> written.contains(h.claim())).toList();
            if (!kept.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement(historySql)) {
                    HISTORY.bind(c, ps, 1, kept);
                    ps.executeUpdate();
                }
            }
        }
        return new Rode(rewoken, readyQueues);
    }

    /** Every committed fan-out's children in ONE insert statement, then each parent parks with what landed. */
    private void fanOut(Connection c, List<Transition> rows, Set<Transition.Claim> committed, Instant now,
                        Map<Long, String> rewoken, Set<String> readyQueues) throws SQLException {
        Map<Long, Integer> landed = new LinkedHashMap<>();
        List<InsertSql.Row> children = new ArrayList<>();
        for (Transition r : rows) {
            if (r instanceof Transition.FanOut fanOut && committed.contains(r.claim())) {
                landed.put(r.id(), 0);
                children.addAll(fanOut.children());
            }
        }
        if (landed.isEmpty()) {
            return;
        }
        List<Long> landedIds = new ArrayList<>();
        // a child whose key's holder ended between its conflict and the holder's read (a null answer)
        // is inserted again, in this transaction, as the public insert does (a few rounds at most)
        List<InsertSql.Row> pending = children;
        for (int round = 0; round < FAN_OUT_ROUNDS && !pending.isEmpty(); round++) {
            Inserted[] answers = insertSql.insert(c, pending, now);
            List<InsertSql.Row> again = new ArrayList<>();
            for (int i = 0; i < answers.length; i++) {
                InsertSql.Row child = pending.get(i);
                if (answers[i] == null) {
                    again.add(child);
                } else if (!answers[i].duplicate()) {
                    landed.merge(child.parentId(), 1, Integer::sum);
                    landedIds.add(answers[i].id());
                    if (!child.eligibleAt().isAfter(now)) {
                        readyQueues.add(child.queue());
                    }
                }
            }
            pending = again;
        }
        rewoken.putAll(childrenSql.park(c, landed, landedIds));
    }
}
