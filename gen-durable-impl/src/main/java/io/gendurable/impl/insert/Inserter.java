package io.gendurable.impl.insert;

import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.impl.db.CallerTransactions;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.poke.Poke;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Validates and inserts instances: one statement for any batch size, then pokes the queues that
 * received due work. Everything is checked before the statement, so a rejected batch writes nothing.
 * Inside a caller's transaction the statement joins it and the pokes wait for its commit.
 */
public final class Inserter {
    private static final int HOLDER_RETRIES = 3;

    private final EngineContext ctx;
    private final InstanceRows instanceRows;
    private final InsertSql sql;
    private final Poke poke;
    private final CallerTransactions callerTransactions;
    /** The configured gates: a batch's rows of a K = 1 key (no gate) go in blocked behind its first. */
    private final java.util.Set<String> gateNames;

    /**
     * @param ctx                the engine's context
     * @param instanceRows       turns new instances into rows
     * @param poke               told of the queues that got rows
     * @param callerTransactions how an insert joins its caller's transaction
     */
    public Inserter(EngineContext ctx, InstanceRows instanceRows, Poke poke, CallerTransactions callerTransactions) {
        this.ctx = ctx;
        this.callerTransactions = callerTransactions;
        this.instanceRows = instanceRows;
        this.sql = ctx.statements().of(InsertSql.class, InsertSql::new);
        this.poke = poke;
        this.gateNames = java.util.Set.copyOf(ctx.config().limits().concurrencyLimits().keySet());
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
        java.util.Optional<CallerTransactions.Joined> joined = callerTransactions.active();
        Inserted[] out = new Inserted[rows.size()];
        List<Integer> todo = java.util.stream.IntStream.range(0, rows.size()).boxed().toList();
        for (int round = 0; !todo.isEmpty(); round++) {
            if (round == HOLDER_RETRIES) {
                throw new IllegalStateException("could not insert or find the holder of correlation keys "
                        + todo.stream().map(i -> rows.get(i).correlationKey()).toList() + " after " + round + " tries");
            }
            List<InsertSql.Row> batch = todo.stream().map(rows::get).toList();
            Db.Work<Inserted[]> work = c -> sql.insert(c, batch, now, gateNames);
            Inserted[] answers = joined.isPresent() ? joined.get().run(work) : ctx.db().inTransaction(work);
            List<Integer> again = new ArrayList<>();
            for (int k = 0; k < answers.length; k++) {
                if (answers[k] == null) {
                    again.add(todo.get(k));  // the holder terminated meanwhile: insert again
                } else {
                    out[todo.get(k)] = answers[k];
                }
            }
            todo = again;
        }
        if (joined.isPresent()) {
            joined.get().afterCommit(() -> pokeDueQueues(rows, out, now));  // rolled back: nothing to announce
        } else {
            pokeDueQueues(rows, out, now);
        }
        return Arrays.asList(out);
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
            rows.add(instanceRows.toRow(ni, now, null));
        }
        return sql.insert(c, rows, now);
    }

    private void pokeDueQueues(List<InsertSql.Row> rows, Inserted[] out, Instant now) {
        Set<String> queues = new LinkedHashSet<>();
        for (int i = 0; i < rows.size(); i++) {
            if (!out[i].duplicate() && !rows.get(i).eligibleAt().isAfter(now)) {
                queues.add(rows.get(i).queue());
            }
        }
        queues.forEach(poke::poke);
    }
}
