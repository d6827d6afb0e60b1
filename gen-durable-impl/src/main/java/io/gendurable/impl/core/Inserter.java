package io.gendurable.impl.core;

import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.Status;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.sql.Db;
import io.gendurable.impl.sql.InsertSql;

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
 */
final class Inserter {
    /** The largest serialized state accepted: keeps one instance from bloating every claim. */
    static final int MAX_STATE_BYTES = 1 << 20;
    private static final int HOLDER_RETRIES = 3;

    private final FsmRegistry registry;
    private final Json json;
    private final Db db;
    private final InsertSql sql;
    private final Poke poke;
    private final InstantSource clock;

    Inserter(FsmRegistry registry, Json json, Db db, InsertSql sql, Poke poke, InstantSource clock) {
        this.registry = registry;
        this.json = json;
        this.db = db;
        this.sql = sql;
        this.poke = poke;
        this.clock = clock;
    }

    List<Inserted> insertAll(List<NewInstance> instances) {
        Objects.requireNonNull(instances, "instances must not be null");
        if (instances.isEmpty()) {
            return List.of();
        }
        Instant now = clock.instant();
        List<InsertSql.Row> rows = new ArrayList<>(instances.size());
        for (int i = 0; i < instances.size(); i++) {
            NewInstance ni = instances.get(i);
            if (ni == null) {
                throw new IllegalArgumentException("instances[" + i + "] is null");
            }
            rows.add(toRow(ni, now));
        }
        Inserted[] out = new Inserted[rows.size()];
        List<Integer> todo = java.util.stream.IntStream.range(0, rows.size()).boxed().toList();
        for (int round = 0; !todo.isEmpty(); round++) {
            if (round == HOLDER_RETRIES) {
                throw new IllegalStateException("could not insert or find the holder of correlation keys "
                        + todo.stream().map(i -> rows.get(i).correlationKey()).toList() + " after " + round + " tries");
            }
            List<InsertSql.Row> batch = todo.stream().map(rows::get).toList();
            Inserted[] answers = db.inTransaction(c -> sql.insert(c, batch, now));
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
        pokeDueQueues(rows, out, now);
        return Arrays.asList(out);
    }

    private InsertSql.Row toRow(NewInstance ni, Instant now) {
        FsmDefinition def = registry.newest(ni.fsm()).orElseThrow(() -> new IllegalArgumentException(
                "fsm '" + ni.fsm() + "' is not registered on this node; registered: " + registry.describe()));
        InsertOptions o = ni.options();
        if (o.concurrencyKey() != null || o.rateLimit() != null) {
            throw new IllegalArgumentException("concurrencyKey and rateLimit are not supported by this release "
                    + "(admission control comes next); leave them null");
        }
        String state;
        try {
            state = json.write(ni.state());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the state of a new '" + ni.fsm() + "' cannot be serialized as JSON: "
                    + e.getMessage(), e);
        }
        if (state != null && state.length() > MAX_STATE_BYTES) {
            throw new IllegalArgumentException("the state of a new '" + ni.fsm() + "' is " + state.length()
                    + " characters as JSON; the limit is " + MAX_STATE_BYTES);
        }
        Set<Status> scope = o.effectiveCorrelationScope();
        String scopeLiteral = o.correlationKey() == null ? null
                : InsertSql.scopeLiteral(scope.stream().map(Status::dbName).toList());
        return new InsertSql.Row(def.name(), def.version(), o.step() != null ? o.step() : def.initialStep(), state,
                o.queue() != null ? o.queue() : def.queue(), o.priority(),
                o.scheduledAt() != null ? o.scheduledAt() : now, o.correlationKey(), scopeLiteral, null, null,
                o.weight(), null);
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
