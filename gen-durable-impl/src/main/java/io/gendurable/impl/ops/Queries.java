package io.gendurable.impl.ops;

import io.gendurable.DurableOperations;
import io.gendurable.InstanceDetails;
import io.gendurable.InstancePage;
import io.gendurable.InstanceQuery;
import io.gendurable.InstanceQuery.Order;
import io.gendurable.InstanceSnapshot;
import io.gendurable.OperationsSummary;
import io.gendurable.QueueSummary;
import io.gendurable.Signal;
import io.gendurable.Status;
import io.gendurable.StepRecord;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.InstanceRow;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.config.LimitsConfig;
import jakarta.persistence.EntityManager;
import java.util.HashSet;
import java.util.Set;
import org.hibernate.Session;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The operations API's reads ({@link DurableOperations#search}, {@link DurableOperations#inspect},
 * {@link DurableOperations#summary}). Each call is
 * one read-only {@code REPEATABLE READ} transaction on the engine's persistence unit, so its
 * statements see one snapshot: a search's two parts (settled and executing rows, see
 * {@link SearchQuery}) cannot both miss, or both return, a row that flips in between. The
 * search's statements are planned for their parameters at every execution
 * ({@code plan_cache_mode = force_custom_plan}, for this transaction only): one FSM may have ten
 * rows and another a million, and a prefix pattern needs its value to become an index range.
 */
public final class Queries {
    private final Db db;
    private final Json json;
    private final InstantSource clock;
    private final InspectSql inspectSql;
    private final SummarySql summarySql;

    /**
     * @param db     the engine's database access
     * @param json   JSON-B for states, results and payloads
     * @param schema the engine's schema
     * @param clock  the engine's clock (the summary's ages)
     */
    public Queries(Db db, Json json, SchemaName schema, InstantSource clock) {
        this.db = Objects.requireNonNull(db, "db");
        this.json = Objects.requireNonNull(json, "json");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.inspectSql = new InspectSql(schema);
        this.summarySql = new SummarySql(schema);
    }

    /** @param query the filters @return one page @see DurableOperations#search */
    public InstancePage search(InstanceQuery query) {
        Objects.requireNonNull(query, "query must not be null");
        Long afterId = query.cursor() == null ? null : Cursor.decode(query.cursor(), query.order());
        int n = query.pageSize();
        boolean newest = query.order() == Order.NEWEST_FIRST;
        List<InstanceRow> rows = db.withEntityManager(em -> {
            begin(em, true);
            List<InstanceRow> all = new ArrayList<>();
            for (SearchQuery.Part part : SearchQuery.parts(query)) {
                all.addAll(SearchQuery.of(query, part, afterId).rows(em, n + 1));
            }
            return all;
        });
        Comparator<InstanceRow> byId = Comparator.comparingLong(InstanceRow::id);
        rows.sort(newest ? byId.reversed() : byId);
        List<InstanceSnapshot> items = new ArrayList<>(Math.min(rows.size(), n));
        for (int i = 0; i < rows.size() && items.size() < n; i++) {
            items.add(Rows.snapshot(rows.get(i), json));
        }
        String next = rows.size() > n ? Cursor.encode(query.order(), items.get(items.size() - 1).id()) : null;
        return new InstancePage(items, next);
    }

    /** @param id an instance @return its details @see DurableOperations#inspect */
    public Optional<InstanceDetails> inspect(long id) {
        return db.withEntityManager(em -> {
            begin(em, false);
            InstanceRow row = em.find(InstanceRow.class, id);
            if (row == null) {
                return Optional.empty();
            }
            InstanceDetails.Builder b = InstanceDetails.builder(Rows.snapshot(row, json));
            if (row.parentId() != null) {
                InstanceRow parent = em.find(InstanceRow.class, row.parentId());
                b.parent(parent == null ? null : Rows.snapshot(parent, json));
            }
            if (row.lockedBy() != null && "executing".equals(row.status())) {
                b.claim(new InstanceDetails.Claim(row.lockedBy(), Rows.instant(row.leaseExpiresAt())));
            }
            jdbc(em, c -> {
                InspectSql.Inbox inbox = inspectSql.inbox(c, id);
                List<Signal> signals = new ArrayList<>(inbox.first().size());
                for (InspectSql.PendingRow s : inbox.first()) {
                    signals.add(new Signal(s.id(), s.name(), json.value(s.payloadJson()), s.dedupKey(), s.insertedAt()));
                }
                b.pendingSignals(signals, inbox.count());
                b.history(inspectSql.history(c, id).stream().map(h -> new StepRecord(h.step(), h.attempt(),
                        h.outcome(), h.startedAt(), h.finishedAt(), h.node(), h.error(),
                        h.stateJson() == null ? null : json.value(h.stateJson()))).toList());
                Map<Status, Long> children = new EnumMap<>(Status.class);
                inspectSql.children(c, id).forEach((status, count) -> children.put(Status.fromDb(status), count));
                b.children(children);
                if (row.concurrencyKey() != null) {
                    String name = LimitsConfig.nameOf(row.concurrencyKey());
                    InspectSql.GateRow g = inspectSql.gate(c, name, row.concurrencyKey());
                    b.gate(new InstanceDetails.Gate(row.concurrencyKey(), name, g.limit() != null,
                            g.limit() == null ? 1 : (int) Math.round(g.limit()), g.executing(),
                            g.limit() == null ? null : g.available()));
                }
                if (row.rateLimit() != null) {
                    String name = LimitsConfig.nameOf(row.rateLimit());
                    InspectSql.RateRow r = inspectSql.rate(c, name, row.rateLimit());
                    b.rateLimit(new InstanceDetails.RateLimit(row.rateLimit(), name, row.weight(), r.perSecond() != null,
                            r.perSecond(), r.burst(), r.available(), r.lastRefill()));
                }
                return null;
            });
            return Optional.of(b.build());
        });
    }

    /** @return the summary @see DurableOperations#summary */
    public OperationsSummary summary() {
        Instant now = clock.instant();
        Set<String> paused = new HashSet<>();
        List<SummarySql.Group> groups = db.withEntityManager(em -> {
            begin(em, false);
            return jdbc(em, c -> {
                paused.addAll(summarySql.paused(c));
                return summarySql.groups(c, now);
            });
        });
        Map<String, Map<Status, Long>> counts = new TreeMap<>();
        Map<String, Instant> oldest = new LinkedHashMap<>();
        for (SummarySql.Group g : groups) {
            counts.computeIfAbsent(g.queue(), q -> new EnumMap<>(Status.class)).put(Status.fromDb(g.status()), g.count());
            if (g.oldestDue() != null) {
                oldest.merge(g.queue(), g.oldestDue(), (a, b) -> a.isBefore(b) ? a : b);
            }
        }
        paused.forEach(q -> counts.computeIfAbsent(q, k -> new EnumMap<>(Status.class)));
        List<QueueSummary> queues = new ArrayList<>(counts.size());
        counts.forEach((queue, byStatus) -> {
            Instant since = oldest.get(queue);
            queues.add(new QueueSummary(queue, byStatus, since, since == null ? Duration.ZERO : Duration.between(since, now),
                    paused.contains(queue)));
        });
        return new OperationsSummary(now, queues);
    }

    /**
     * The transaction's first statement: one snapshot for all its reads, read-only; a search also
     * plans each statement for its parameters.
     */
    private static void begin(EntityManager em, boolean customPlans) {
        jdbc(em, c -> {
            try (Statement s = c.createStatement()) {
                s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"
                        + (customPlans ? "; SET LOCAL plan_cache_mode = force_custom_plan" : ""));
            }
            return null;
        });
    }

    @FunctionalInterface
    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private static <T> T jdbc(EntityManager em, Work<T> work) {
        return em.unwrap(Session.class).doReturningWork(work::run);
    }
}
