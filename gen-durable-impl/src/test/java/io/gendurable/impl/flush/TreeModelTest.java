package io.gendurable.impl.flush;

import io.gendurable.InstanceQuery;
import io.gendurable.RetryOptions;
import io.gendurable.Status;
import io.gendurable.TransitionOptions.KeyChange;
import io.gendurable.impl.claim.ClaimSql;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.insert.InsertSql;
import io.gendurable.impl.step.ClaimedRow;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Trees of instances against a model: random claims, outcomes (done, failed, next, fan-outs of
 * zero to three children), operator retries (from the step or from {@code start}), cancels with
 * and without descendants (a running step's is a request its outcome's flush ends), purges of
 * every ended row, GC passes with short retentions, and time. The engine's own statements run
 * (claim, flush, the operator's actions, the GC), on the model's clock. After every step:
 * <ul>
 * <li>every row's status is the model's; a parent awaiting its children waits for exactly the
 *     children of its current fan-out that have not ended yet ({@code children_pending}), so it
 *     joins exactly when the last of them ends: a child counts once (a retried child that counted
 *     does not count again) and only toward the fan-out that created it;</li>
 * <li>a claimed parent's children (what its join step reads) include every child the model
 *     knows of it: neither the GC nor a purge freed one while the parent may still read it;</li>
 * <li>after a cancel with descendants, no descendant is live unless its cancel is requested (its
 *     step runs);</li>
 * <li>the GC and a purge delete only ended rows, past their retention for the GC.</li>
 * </ul>
 * {@code mvn verify} runs a few seeds; {@code -Dtree.model.seeds=20 -Dtree.model.steps=500} runs more.
 */
@EngineTest
class TreeModelTest {
    private static final Duration TTL = Duration.ofHours(1);
    private static final Duration RETENTION = Duration.ofSeconds(20);
    private static final Duration FAILED_RETENTION = Duration.ofSeconds(60);
    private static final String W = "tree:default@1";

    /** What the model says of one row. */
    private static final class Row {
        String status = "runnable";
        Long parent;
        // a parent's current fan-out: its children (ids), and which of them have ended since
        final Set<Long> round = new HashSet<>();
        // this child has ended once: it never counts again
        boolean counted;
        boolean cancelRequested;
        Instant endedAt;
        long token;

        @Override
        public String toString() {
            return status + (parent == null ? "" : " child of " + parent) + (round.isEmpty() ? "" : " round " + round)
                    + (counted ? " counted" : "") + (cancelRequested ? " cancel requested" : "");
        }
    }

    private EngineHarness h;
    private Engine engine;
    private ClaimSql claimSql;
    private FlushSql flushSql;
    private ChildrenSql childrenSql;
    private Instant now;
    private final Map<Long, Row> rows = new TreeMap<>();
    private final Map<Long, ClaimedRow> running = new TreeMap<>();
    private String where;
    private long steps;
    private final Map<String, Long> counts = new TreeMap<>();

    @Test
    void random_fan_outs_outcomes_retries_cancels_purges_and_gc_passes_agree_with_the_model(EngineHarness h) throws Exception {
        this.h = h;
        h.start("tree", c -> c.queues(Map.of())).stop();  // migrates the schema
        engine = h.build("tree-ops", c -> c.queues(Map.of())
                .gc(new EngineConfig.GcConfig(true, Duration.ofMinutes(1), RETENTION, FAILED_RETENTION, 1000)), () -> now);
        SchemaName schema = new SchemaName(h.schema());
        Statements statements = new Statements(schema);
        claimSql = new ClaimSql(schema);
        flushSql = FlushSql.in(statements);
        childrenSql = new ChildrenSql(schema);
        int seeds = Integer.getInteger("tree.model.seeds", 3);
        int perSeed = Integer.getInteger("tree.model.steps", 300);
        List<Long> list = io.gendurable.impl.support.ModelSeeds.of(seeds);
        for (long seed : list.subList(0, seeds)) {
            run(seed, perSeed);
        }
        System.out.println("tree model: " + steps + " steps over " + seeds + " seeds (" + list.subList(0, seeds) + "): " + counts);
        assertThat(steps).isEqualTo((long) seeds * perSeed);
        assertThat(counts.getOrDefault("joins", 0L)).as("parents joined").isPositive();
    }

    private void count(String what) {
        counts.merge(what, 1L, Long::sum);
    }

    private void run(long seed, int n) throws SQLException {
        Random r = new Random(seed);
        h.exec("DELETE FROM gen_durable");
        rows.clear();
        running.clear();
        now = Instant.parse("2026-01-01T00:00:00Z");
        for (int i = 0; i < 4; i++) {
            insertRoot();
        }
        for (int step = 0; step < n; step++) {
            int op = r.nextInt(100);
            where = "seed " + seed + ", step " + step + ": ";
            if (op < 25) {
                where += "claim";
                claim(1 + r.nextInt(4));
            } else if (op < 55) {
                where += "flush";
                flush(r);
            } else if (op < 63) {
                where += "retry";
                retry(r);
            } else if (op < 71) {
                boolean desc = r.nextBoolean();
                where += "cancel" + (desc ? " with descendants" : "");
                cancel(r, desc);
            } else if (op < 75) {
                where += "purge";
                purge();
            } else if (op < 83) {
                where += "gc";
                gc();
            } else if (op < 93) {
                where += "time passes";
                now = now.plusSeconds(1 + r.nextInt(15));
            } else {
                where += "insert a root";
                insertRoot();
            }
            check();
            steps++;
        }
    }

    private void insertRoot() {
        long id = h.queryLong("INSERT INTO gen_durable (fsm, step, state, eligible_at) VALUES ('model', 'start', '{}', '"
                + now.minusSeconds(60) + "') RETURNING id");
        rows.put(id, new Row());
    }

    private void claim(int demand) throws SQLException {
        List<ClaimedRow> claimed = tx(c -> claimSql.claim(c, "default", W, demand, now, now.plus(TTL), new String[0], new String[]{"model:1"}));
        for (ClaimedRow c : claimed) {
            Row x = rows.get(c.id());
            assertThat(x).as(where + "claimed row " + c.id() + " in the model").isNotNull();
            assertThat(x.status).as(where + "claimed row " + c.id() + " (" + x + ") was runnable").isEqualTo("runnable");
            x.status = "executing";
            x.token = c.claimToken();
            running.put(c.id(), c);
            // what its step reads: every child the model knows of it
            Set<Long> known = new HashSet<>();
            rows.forEach((id, y) -> {
                if (y.parent != null && y.parent == c.id()) {
                    known.add(id);
                }
            });
            if (!known.isEmpty()) {
                Set<Long> loaded = new HashSet<>();
                tx(conn -> childrenSql.load(conn, List.of(c.id()))).getOrDefault(c.id(), List.of())
                        .forEach(ch -> loaded.add(ch.id()));
                assertThat(loaded).as(where + "the children row " + c.id() + " reads").containsAll(known);
                if (!x.round.isEmpty()) {
                    count("joins");
                }
            }
        }
    }

    private void flush(Random r) throws SQLException {
        List<Transition> batch = new ArrayList<>();
        List<String> kinds = new ArrayList<>();
        for (ClaimedRow c : running.values()) {
            if (r.nextInt(2) != 0) {
                continue;
            }
            Transition.Claim claim = new Transition.Claim(c.id(), W, c.claimToken());
            int kind = r.nextInt(10);
            String k = kind < 3 ? "done" : kind < 5 ? "failed" : kind < 6 ? "next" : "fan-out";
            kinds.add(k);
            batch.add(switch (k) {
                case "done" -> new Transition.Finish(claim, Status.DONE, "{}", null, c.parentId(), null);
                case "failed" -> new Transition.Finish(claim, Status.FAILED, null, "boom", c.parentId(), null);
                case "next" -> new Transition.Next(claim, new Transition.NextStep("b", "{}", null, 1, KeyChange.KEEP, null),
                        now, List.of(), null, null);
                default -> {
                    List<InsertSql.Row> kids = new ArrayList<>();
                    for (int i = r.nextInt(4); i > 0; i--) {
                        kids.add(new InsertSql.Row("model", 1, "start", "{}", "default", 0, now.minusSeconds(1), null, null,
                                null, null, 1, c.id(), null, null));
                    }
                    yield new Transition.FanOut(claim, "joined", "{}", List.of(), kids, null, null);
                }
            });
        }
        if (batch.isEmpty()) {
            return;
        }
        Set<Long> before = new HashSet<>(rows.keySet());
        FlushSql.Flushed flushed = tx(c -> flushSql.flush(c, batch, now));
        assertThat(flushed.deferred()).as(where + "nothing else holds these rows").isEmpty();
        Map<Long, Long> newChildren = newRows(before);
        for (int i = 0; i < batch.size(); i++) {
            Transition t = batch.get(i);
            running.remove(t.id());
            assertThat(flushed.committed(t)).as(where + "outcome of " + t.id() + " committed").isTrue();
            Row x = rows.get(t.id());
            if (x.cancelRequested) {
                assertThat(flushed.cancelled(t)).as(where + "a requested cancel's outcome").isTrue();
                x.cancelRequested = false;
                end(t.id(), "cancelled");
                count("cancels ended by the flush");
                continue;
            }
            switch (kinds.get(i)) {
                case "done", "failed" -> end(t.id(), kinds.get(i));
                case "next" -> x.status = "runnable";
                default -> {
                    x.round.clear();
                    newChildren.forEach((child, parent) -> {
                        if (parent == t.id()) {
                            x.round.add(child);
                        }
                    });
                    x.status = x.round.isEmpty() ? "runnable" : "awaiting_children";
                    count("fan-outs");
                }
            }
        }
        newChildren.forEach((child, parent) -> {
            Row y = new Row();
            y.parent = parent;
            rows.put(child, y);
        });
    }

    /** @return the rows not in {@code before}: id → parent */
    private Map<Long, Long> newRows(Set<Long> before) throws SQLException {
        Map<Long, Long> out = new HashMap<>();
        try (Connection c = h.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, parent_id FROM " + h.schema() + ".gen_durable")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (!before.contains(rs.getLong(1))) {
                        out.put(rs.getLong(1), rs.getLong(2));
                    }
                }
            }
        }
        return out;
    }

    /** The row ends: a parent awaiting it (in its current round, not counted yet) counts it. */
    private void end(long id, String status) {
        Row x = rows.get(id);
        x.status = status;
        x.endedAt = now;
        running.remove(id);
        if (x.parent != null && !x.counted) {
            x.counted = true;
            Row p = rows.get(x.parent);
            if (p != null && p.status.equals("awaiting_children") && p.round.contains(id)) {
                if (pending(p) == 0) {
                    p.status = "runnable";
                }
            }
        }
    }

    private long pending(Row p) {
        return p.round.stream().filter(c -> !rows.containsKey(c) || !rows.get(c).counted).count();
    }

    private void retry(Random r) {
        List<Long> ended = rows.entrySet().stream().filter(e -> List.of("failed", "cancelled").contains(e.getValue().status))
                .map(Map.Entry::getKey).toList();
        if (ended.isEmpty()) {
            return;
        }
        long id = ended.get(r.nextInt(ended.size()));
        if (r.nextBoolean()) {
            engine.operations().retry(id, RetryOptions.defaults().fromStep("start"));
        } else {
            engine.operations().retry(id);
        }
        Row x = rows.get(id);
        x.status = "runnable";
        x.endedAt = null;
        x.round.clear();  // its next run fans out anew, or not: no earlier child counts toward it
        count("retries" + (x.parent != null ? " of children" : "") + (x.counted ? " that counted" : ""));
    }

    private boolean live(Row x) {
        return List.of("runnable", "executing", "awaiting_children").contains(x.status);
    }

    private void cancel(Random r, boolean withDescendants) {
        List<Long> live = rows.entrySet().stream().filter(e -> live(e.getValue())).map(Map.Entry::getKey).toList();
        if (live.isEmpty()) {
            return;
        }
        long id = live.get(r.nextInt(live.size()));
        List<Long> targets = new ArrayList<>(List.of(id));
        if (withDescendants) {
            targets.addAll(descendants(id));
        }
        engine.operations().cancel(id, "model", withDescendants);
        Set<Long> cancelled = new HashSet<>();
        for (long t : targets) {
            Row x = rows.get(t);
            if (x.status.equals("executing")) {
                x.cancelRequested = true;
            } else if (live(x)) {
                cancelled.add(t);
            }
        }
        // a parent cancelled in the same call awaits nothing: mark it first, then end its children
        for (long t : cancelled) {
            rows.get(t).status = "cancelled";
        }
        for (long t : cancelled) {
            Row x = rows.get(t);
            x.status = "live-again";  // end() sets it
            boolean parentAlsoCancelled = x.parent != null && cancelled.contains(x.parent);
            if (parentAlsoCancelled) {
                x.status = "cancelled";
                x.endedAt = now;
            } else {
                end(t, "cancelled");
            }
        }
        count(withDescendants ? "cancels with descendants" : "cancels");
    }

    private List<Long> descendants(long id) {
        List<Long> out = new ArrayList<>();
        rows.forEach((c, y) -> {
            if (y.parent != null && y.parent == id) {
                out.add(c);
                out.addAll(descendants(c));
            }
        });
        return out;
    }

    /** Every ended row, but a child whose parent exists and is not done (it may still read it). */
    private Set<Long> freeable(java.util.function.Predicate<Row> which) {
        Set<Long> out = new HashSet<>();
        rows.forEach((id, x) -> {
            if (which.test(x)) {
                Row p = x.parent == null ? null : rows.get(x.parent);
                if (p == null || p.status.equals("done")) {
                    out.add(id);
                }
            }
        });
        return out;
    }

    private void purge() {
        Set<Long> expected = freeable(x -> List.of("done", "failed", "cancelled").contains(x.status));
        var result = engine.operations().purge(InstanceQuery.builder().status(Status.DONE, Status.FAILED, Status.CANCELLED).build());
        Set<Long> gone = new HashSet<>(rows.keySet());
        try {
            gone.removeAll(newRows(Set.of()).keySet());
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        // a parent purged in an earlier page frees its children for a later one: either is right
        Set<Long> closure = closure(expected);
        assertThat(gone).as(where + "purged (" + result + ")").containsAll(expected);
        assertThat(closure).as(where + "purged only ended rows no parent may read (" + result + ")").containsAll(gone);
        gone.forEach(rows::remove);
        if (!gone.isEmpty()) {
            count("purges that deleted");
        }
    }

    /** @return {@code first}, and the rows freed in turn once they are gone (their parents gone) */
    private Set<Long> closure(Set<Long> first) {
        Set<Long> out = new HashSet<>(first);
        boolean grew = true;
        while (grew) {
            grew = false;
            for (Map.Entry<Long, Row> e : rows.entrySet()) {
                Row x = e.getValue();
                if (!out.contains(e.getKey()) && List.of("done", "failed", "cancelled").contains(x.status)
                        && x.parent != null && out.contains(x.parent)) {
                    out.add(e.getKey());
                    grew = true;
                }
            }
        }
        return out;
    }

    private void gc() throws SQLException {
        Set<Long> mayGo = freeable(x -> x.status.equals("done") && x.endedAt.isBefore(now.minus(RETENTION))
                || List.of("failed", "cancelled").contains(x.status) && x.endedAt.isBefore(now.minus(FAILED_RETENTION)));
        EngineInternals.gc(engine).runOnce();
        Set<Long> gone = new HashSet<>(rows.keySet());
        gone.removeAll(newRows(Set.of()).keySet());
        assertThat(mayGo).as(where + "the GC deleted only ended rows past retention, no child a parent may read").containsAll(gone);
        assertThat(gone).as(where + "the GC deleted what it may").isEqualTo(mayGo);
        gone.forEach(rows::remove);
        if (!gone.isEmpty()) {
            count("gc passes that deleted");
        }
    }

    private void check() throws SQLException {
        Map<Long, String> db = new HashMap<>();
        try (Connection c = h.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, status::text, children_pending, cancel_requested IS NOT NULL FROM " + h.schema() + ".gen_durable")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long id = rs.getLong(1);
                    Row x = rows.get(id);
                    assertThat(x).as(where + "row " + id + " in the model").isNotNull();
                    assertThat(rs.getString(2)).as(where + "status of row " + id + " (model: " + x + ")").isEqualTo(x.status);
                    if (x.status.equals("awaiting_children")) {
                        assertThat((long) rs.getInt(3)).as(where + "children pending of " + id + " (model: " + x + ")")
                                .isEqualTo(pending(x)).isPositive();
                    }
                    if (x.status.equals("executing")) {
                        assertThat(rs.getBoolean(4)).as(where + "cancel requested of " + id).isEqualTo(x.cancelRequested);
                    }
                    db.put(id, rs.getString(2));
                }
            }
        }
        assertThat(db.keySet()).as(where + "rows").isEqualTo(rows.keySet());
    }

    private <T> T tx(EngineHarness.Work<T> work) throws SQLException {
        return h.inTransaction(work);
    }
}
