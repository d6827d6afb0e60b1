package io.gendurable.impl.insert;

import io.gendurable.impl.db.UnknownCommitException;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.impl.db.CallerTransactions;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.poke.Poke;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Validates and inserts instances: one statement for any batch size, then pokes the queues that
 * received due work. Everything is checked before the statement, so a rejected batch writes nothing.
 * Inside a caller's transaction the statement joins it and the pokes wait for its commit.
 * Outside one, a row that can start at once is claimed by its own insert for a free slot of
 * this node ({@link InsertStarts}): its step starts when the insert commits, and nothing is poked for it.
 */
public final class Inserter {
    private static final int HOLDER_RETRIES = 3;
    // tests only: runs before each round after the first (a key whose holder ended meanwhile is inserted again)
    static volatile Runnable beforeRetryRound = () -> { };

    private final EngineContext ctx;
    private final InstanceRows instanceRows;
    private final InsertSql sql;
    private final DebouncedInsertSql debouncedSql;
    private final Poke poke;
    private final CallerTransactions callerTransactions;
    private final InsertStarts starts;
    /** The configured gates: a batch's rows of a K = 1 key (no gate) go in blocked behind its first. */
    private final Set<String> gateNames;

    /**
     * @param ctx                the engine's context
     * @param instanceRows       turns new instances into rows
     * @param poke               told of the queues that got rows
     * @param callerTransactions how an insert joins its caller's transaction
     * @param starts             this node's queues that start a row at its insert ({@link InsertStarts#NONE}: none)
     */
    public Inserter(EngineContext ctx, InstanceRows instanceRows, Poke poke, CallerTransactions callerTransactions,
                    InsertStarts starts) {
        this.ctx = ctx;
        this.starts = ctx.config().poll().startAtInsert() ? starts : InsertStarts.NONE;
        this.callerTransactions = callerTransactions;
        this.instanceRows = instanceRows;
        this.sql = ctx.statements().of(InsertSql.class, InsertSql::new);
        this.debouncedSql = ctx.statements().of(DebouncedInsertSql.class, DebouncedInsertSql::new);
        this.poke = poke;
        this.gateNames = Set.copyOf(ctx.config().limits().concurrencyLimits().keySet());
    }

    public List<Inserted> insertAll(List<NewInstance> instances) {
        Objects.requireNonNull(instances, "instances must not be null");
        if (instances.isEmpty()) {
            return List.of();
        }
        Instant now = ctx.clock().instant();
        List<InsertSql.Row> rows = new ArrayList<>(instances.size());
        for (int i = 0; i < instances.size(); i++) {
            NewInstance ni = instances.get(i);
            if (ni == null) {
                throw new IllegalArgumentException("instances[" + i + "] is null");
            }
            rows.add(instanceRows.toRow(ni, now, null));
        }
        Optional<CallerTransactions.Joined> joined = callerTransactions.active();
        Inserted[] out = new Inserted[rows.size()];
        // slots reserved for rows their insert claims (never inside a caller's transaction, whose
        // commit is not ours to wait for): each is either handed its row or released, whatever happens
        InsertStarts.Slot[] slots = joined.isPresent() ? null : reserve(rows, now);
        boolean[] started = new boolean[rows.size()];
        boolean own = joined.isEmpty();  // a caller's transaction keeps its session settings (InsertSql.JIT_OFF_ROWS)
        // every round in ONE transaction (the caller's, or one of the engine's): a batch that
        // needed a second round (a duplicate's holder ended before it could be read) and then
        // failed writes nothing, as a rejected batch must; each statement reads afresh (read committed)
        List<Round> rounds = new ArrayList<>();
        // debounced rows (InsertOptions.debounce) go through a statement of their own, in the same transaction
        List<Integer> debouncedPositions = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).debounceKey() != null) {
                debouncedPositions.add(i);
            }
        }
        Inserted[][] debouncedAnswers = new Inserted[1][];
        try {
            Db.Work<Void> work = c -> {
                rounds.clear();
                if (!debouncedPositions.isEmpty()) {
                    debouncedAnswers[0] = debouncedSql.insertDebounced(c, debouncedPositions.stream().map(rows::get).toList(), now);
                }
                List<Integer> todo = IntStream.range(0, rows.size())
                        .filter(i -> rows.get(i).debounceKey() == null).boxed().toList();
                for (int round = 0; !todo.isEmpty(); round++) {
                    if (round == HOLDER_RETRIES) {
                        List<Integer> left = todo;
                        throw new IllegalStateException("could not insert or find the holder of correlation keys "
                                + left.stream().map(i -> rows.get(i).correlationKey()).toList() + " after " + round + " tries");
                    }
                    if (round > 0) {
                        beforeRetryRound.run();
                    }
                    List<Integer> positions = todo;
                    List<InsertSql.Row> batch = positions.stream().map(rows::get).toList();
                    Leased leased = new Leased();
                    Round r = new Round(positions, leased);
                    rounds.add(r);  // before the statement: a lost commit answer gives back what it claimed
                    leased.insert(c, batch, now, claimBy(slots, positions), own);
                    List<Integer> again = new ArrayList<>();
                    for (int k = 0; k < positions.size(); k++) {
                        if (leased.answers.inserted()[k] == null) {
                            again.add(positions.get(k));  // the holder terminated meanwhile: insert again
                        }
                    }
                    todo = again;
                }
                return null;
            };
            try {
                if (joined.isPresent()) {
                    joined.get().run(work);
                } else {
                    // unique-index probes only; a dedup conflict's holder read applies the planner settings itself
                    ctx.db().inPlainTransaction(work);
                }
            } catch (UnknownCommitException e) {
                for (Round r : rounds) {
                    unconfirmed(slots, r.positions(), r.leased().answers, now, rows);
                }
                throw e;
            }
            for (int k = 0; k < debouncedPositions.size(); k++) {
                out[debouncedPositions.get(k)] = debouncedAnswers[0][k];
            }
            for (Round r : rounds) {
                InsertSql.Answers answers = r.leased().answers;
                for (int k = 0; k < r.positions().size(); k++) {
                    int i = r.positions().get(k);
                    if (answers.inserted()[k] == null) {
                        continue;  // answered by a later round
                    }
                    out[i] = answers.inserted()[k];
                    if (answers.claimTokens()[k] != 0) {
                        started[i] = true;
                        InsertStarts.Slot slot = slots[i];
                        slots[i] = null;
                        slot.claimed(rows.get(i), out[i].id(), answers.claimTokens()[k], answers.attempts()[k], now,
                                r.leased().until);
                    }
                }
            }
        } finally {
            release(slots);
        }
        long debounced = Arrays.stream(out).filter(Inserted::debounced).count();
        if (joined.isPresent()) {
            joined.get().afterCommit(() -> {  // rolled back: nothing to announce or count
                ctx.metrics().debounced.add(debounced);
                pokeDueQueues(rows, out, started, now);
            });
        } else {
            ctx.metrics().debounced.add(debounced);
            pokeDueQueues(rows, out, started, now);
        }
        return Arrays.asList(out);
    }

    /**
     * One insert statement with the lease of the rows it claims: read from the clock once the
     * statement has a connection, and stamped again, fenced by the rows' tokens, in the same
     * transaction when the statement took over half the lease (it waits for an uncommitted holder
     * of a correlation key, e.g. a caller's open JTA transaction). A row thus never becomes visible
     * as claimed with a lease already past, which any node's reaper would take while its step runs
     * here (and the step's start checks the lease again: {@code StepRunner.Continued#live}).
     */
    private final class Leased {
        // the statement's answers, kept for a commit whose answer is lost; and the claimed rows' lease
        InsertSql.Answers answers;
        Instant until;

        InsertSql.Answers insert(Connection c, List<InsertSql.Row> batch, Instant now, String[] claimBy, boolean own)
                throws SQLException {
            Duration ttl = ctx.config().lease().ttl();
            until = claimBy == null ? null : ctx.clock().instant().plus(ttl);
            answers = sql.insert(c, batch, now, gateNames, claimBy, until, own);
            if (claimBy != null && ctx.clock().instant().plus(ttl.dividedBy(2)).isAfter(until)) {
                Map<Long, Long> claims = new HashMap<>();
                for (int k = 0; k < batch.size(); k++) {
                    if (answers.claimTokens()[k] != 0) {
                        claims.put(answers.inserted()[k].id(), answers.claimTokens()[k]);
                    }
                }
                until = ctx.clock().instant().plus(ttl);
                sql.stampLeases(c, claims, until);
            }
            return answers;
        }
    }

    /** One statement of a batch's transaction: the positions it inserted, and its answers and lease. */
    private record Round(List<Integer> positions, Leased leased) {
    }

    /** The commit answer was lost: rows the statement claimed go back by their tokens, their slots are freed. */
    private static void unconfirmed(InsertStarts.Slot[] slots, List<Integer> positions, InsertSql.Answers answers,
                                    Instant now, List<InsertSql.Row> rows) {
        if (slots == null || answers == null) {
            return;
        }
        for (int k = 0; k < positions.size(); k++) {
            int i = positions.get(k);
            if (answers.claimTokens()[k] != 0 && slots[i] != null) {
                InsertStarts.Slot slot = slots[i];
                slots[i] = null;
                slot.unconfirmed(rows.get(i), answers.inserted()[k].id(), answers.claimTokens()[k], answers.attempts()[k], now);
            }
        }
    }

    /** @return per row, a slot of its queue reserved for its insert to claim it, where it can start at once; or null for none */
    private InsertStarts.Slot[] reserve(List<InsertSql.Row> rows, Instant now) {
        if (starts == InsertStarts.NONE) {
            return null;
        }
        InsertStarts.Slot[] slots = null;
        for (int i = 0; i < rows.size(); i++) {
            if (InsertSql.startable(rows.get(i), now)) {
                InsertStarts.Slot slot = starts.reserve(rows.get(i).queue());
                if (slot != null) {
                    slots = slots == null ? new InsertStarts.Slot[rows.size()] : slots;
                    slots[i] = slot;
                }
            }
        }
        return slots;
    }

    /** @return the workers the rows at these positions are claimed for, or null when none is */
    private static String[] claimBy(InsertStarts.Slot[] slots, List<Integer> positions) {
        if (slots == null) {
            return null;
        }
        String[] by = new String[positions.size()];
        boolean any = false;
        for (int k = 0; k < positions.size(); k++) {
            InsertStarts.Slot slot = slots[positions.get(k)];
            if (slot != null) {
                by[k] = slot.worker();
                any = true;
            }
        }
        return any ? by : null;
    }

    /** Frees the reserved slots whose rows were not claimed (a failed statement, a paused queue). */
    private static void release(InsertStarts.Slot[] slots) {
        if (slots == null) {
            return;
        }
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] != null) {
                slots[i].release();
                slots[i] = null;
            }
        }
    }

    /**
     * Inserts in a transaction an engine service holds (the schedules' firing loop), validated as
     * {@link #insertAll}; announces nothing: the caller pokes the queues after its commit.
     *
     * @param c         the service's transaction
     * @param instances the instances
     * @return one answer per instance; a null entry is a key whose holder was deleted meanwhile
     * @throws SQLException when the statement fails
     */
    public Inserted[] insertIn(Connection c, List<NewInstance> instances) throws SQLException {
        Instant now = ctx.clock().instant();
        List<InsertSql.Row> rows = new ArrayList<>(instances.size());
        for (NewInstance ni : instances) {
            if (ni.options().debounce() != null) {
                throw new IllegalArgumentException("a service's insert cannot be debounced: " + ni.fsm());
            }
            rows.add(instanceRows.toRow(ni, now, null));
        }
        return sql.insert(c, rows, now);
    }

    private void pokeDueQueues(List<InsertSql.Row> rows, Inserted[] out, boolean[] started, Instant now) {
        Set<String> queues = new LinkedHashSet<>();
        for (int i = 0; i < rows.size(); i++) {
            if (!out[i].duplicate() && !started[i] && !rows.get(i).eligibleAt().isAfter(now)) {
                queues.add(rows.get(i).queue());
            }
        }
        queues.forEach(poke::poke);
    }
}
