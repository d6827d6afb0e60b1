package io.gendurable.impl.fencing;

import io.gendurable.Status;
import io.gendurable.TransitionOptions.KeyChange;
import io.gendurable.impl.claim.ClaimSql;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.flush.FlushSql;
import io.gendurable.impl.flush.Transition;
import io.gendurable.impl.lease.LeaseSql;
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
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease lifecycle against a model (issue 35): random sequences of the engine's own claim,
 * heartbeat, flush, release and reaper statements, issued for three workers (two of one node, one
 * of another) with an explicit clock, each worker remembering the claims it believes it holds,
 * stale ones included. After every step the rows are read back and compared with a small model.
 * <ul>
 * <li>A write of a stale claim never takes effect: every row's status, holder and token are the
 *     model's, which only the row's current claim moves.</li>
 * <li>Every stale outcome in a flush batch is absent from {@code Flushed.committed}, also when
 *     the row's current claim's outcome is in the same batch; the heartbeat renews and the
 *     release gives back exactly the current claims presented.</li>
 * <li>A paused queue is claimed by no path (the queue's claim, by id, an insert's);</li>
 * <li>An operator's cancel of a running row is a request: the row keeps its claim until its
 *     outcome's flush (or the reaper, once the lease lapsed) ends it cancelled, and a release
 *     leaves it; any other live row is cancelled at once; a parent awaiting it counts it.</li>
 * <li>No K = 1 key is executing twice; a claim nobody remembers (a failed release, a lost
 *     worker) is never renewed, so it lapses to the reaper: no row is stranded.</li>
 * </ul>
 * {@code mvn verify} runs a few fixed seeds; {@code -Dfencing.model.seeds=20 -Dfencing.model.steps=600}
 * runs more (each failure prints its seed and step).
 */
@EngineTest
class LeaseModelTest {
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final String QUEUE = "default";
    /** The claims' {@code fsm:version} keys: the model's rows are FSM {@code model}, version 1. */
    private static final String[] RUNNABLE = {"model:1"};
    private static final String[] WORKERS = {"a:default@1", "a:default@2", "b:default@1"};
    private static final String[] KEYS = {null, null, "k:1", "k:2"};

    /** What the model says of one row. */
    private static final class Row {
        String status = "runnable";
        String worker;
        long token;
        Instant lease;
        String key;
        Instant eligible;
        Long parent;
        int pending;
        boolean cancelRequested;

        @Override
        public String toString() {
            return status + (worker == null ? "" : " " + worker + "#" + token + " until " + lease);
        }
    }

    private EngineHarness h;
    private ClaimSql claimSql;
    private FlushSql flushSql;
    private LeaseSql leaseSql;
    private Instant now;
    private final Map<Long, Row> rows = new TreeMap<>();
    /** per worker: id → the token it believes it holds (what its heartbeat presents) */
    private final Map<String, Map<Long, Long>> memory = new HashMap<>();
    /** every claim whose step may still hand in an outcome, stale ones included (a claim and its re-claim by one worker) */
    private final Set<Transition.Claim> running = new HashSet<>();
    private long steps;
    private String where;
    private long staleOutcomes;
    private long sameRowBatches;
    private long committedOutcomes;
    private long fanOuts;
    private boolean paused;
    private long cancels;
    private long insertClaims;
    private io.gendurable.impl.insert.InsertSql insertSql;
    private io.gendurable.impl.engine.Engine engine;

    @Test
    void random_claims_heartbeats_flushes_releases_and_reaps_agree_with_the_model(EngineHarness h) throws Exception {
        this.h = h;
        h.start("model", c -> c.queues(Map.of())).stop();  // migrates the schema
        // an engine on the model's clock, never started (no loop of its own): its operator's cancel and its reaper
        engine = h.build("model-ops", c -> c.queues(Map.of()), () -> now);
        SchemaName schema = new SchemaName(h.schema());
        insertSql = new io.gendurable.impl.insert.InsertSql(schema);
        Statements statements = new Statements(schema);
        claimSql = new ClaimSql(schema);
        flushSql = FlushSql.in(statements);
        leaseSql = new LeaseSql(schema);
        int seeds = Integer.getInteger("fencing.model.seeds", 3);
        int perSeed = Integer.getInteger("fencing.model.steps", 250);
        List<Long> list = io.gendurable.impl.support.ModelSeeds.of(seeds);
        for (long seed : list.subList(0, seeds)) {
            run(seed, perSeed);
        }
        System.out.println("lease model: " + steps + " steps over " + seeds + " seeds (seeds " + list.subList(0, seeds)
                + "): outcomes committed " + committedOutcomes + ", stale " + staleOutcomes + ", batches with two outcomes of one row "
                + sameRowBatches + ", fan-outs committed " + fanOuts + ", cancels " + cancels + ", inserts that claimed " + insertClaims);
        assertThat(steps).isEqualTo((long) seeds * perSeed);
    }

    private void run(long seed, int n) throws SQLException {
        Random r = new Random(seed);
        h.exec("DELETE FROM gen_durable");
        rows.clear();
        memory.clear();
        running.clear();
        h.exec("DELETE FROM gen_durable_paused_queues");
        paused = false;
        for (String w : WORKERS) {
            memory.put(w, new HashMap<>());
        }
        now = Instant.parse("2026-01-01T00:00:00Z");
        for (int i = 0; i < 12; i++) {
            insert(KEYS[r.nextInt(KEYS.length)]);
        }
        for (int step = 0; step < n; step++) {
            String w = WORKERS[r.nextInt(WORKERS.length)];
            int op = r.nextInt(100);
            where = "seed " + seed + ", step " + step + ": ";
            if (op < 14) {
                where += "claim by " + w;
                claim(w, 1 + r.nextInt(4));
            } else if (op < 18) {
                where += "insert claimed by " + w;
                insertClaimed(w);
            } else if (op < 21) {
                where += "cancel";
                cancel(r);
            } else if (op < 24) {
                where += "claim by id by " + w;
                claimById(w, r);
            } else if (op < 34) {
                where += "time passes";
                now = now.plus(r.nextInt(4) == 0 ? TTL.plusSeconds(1) : Duration.ofSeconds(1 + r.nextInt(5)));
            } else if (op < 42) {
                where += "reap";
                reap();
            } else if (op < 54) {
                where += "heartbeat of " + w;
                heartbeat(w);
            } else if (op < 80) {
                where += "flush";
                flush(r);
            } else if (op < 88) {
                boolean fails = r.nextInt(3) == 0;
                where += (fails ? "failed " : "") + "release by " + w;
                release(w, r, fails);
            } else if (op < 92) {
                where += "stop of " + w;
                release(w, new Random(0) {
                    @Override
                    public int nextInt(int bound) {
                        return 0;  // every claim it holds
                    }
                }, false);
            } else if (op < 94) {
                paused = !paused;
                where += paused ? "pause" : "resume";
                h.exec(paused ? "INSERT INTO gen_durable_paused_queues (queue, paused_at, paused_by) VALUES ('default', now(), 'model')"
                        : "DELETE FROM gen_durable_paused_queues");
            } else if (op < 97) {
                where += "wake a parked row, insert a row";
                h.exec("UPDATE gen_durable SET status = 'runnable', awaits = NULL WHERE status = 'awaiting_signal'");
                rows.values().stream().filter(x -> x.status.equals("awaiting_signal")).forEach(x -> x.status = "runnable");
                insert(KEYS[r.nextInt(KEYS.length)]);
            } else {
                where += "re-runnable: finished rows back";
                h.exec("UPDATE gen_durable SET status = 'runnable' WHERE status IN ('done', 'failed') AND parent_id IS NULL"
                        + " AND NOT EXISTS (SELECT 1 FROM gen_durable c WHERE c.parent_id = gen_durable.id)");
                Set<Long> parents = new HashSet<>();
                rows.values().forEach(x -> {
                    if (x.parent != null) {
                        parents.add(x.parent);
                    }
                });
                rows.forEach((id, x) -> {
                    if ((x.status.equals("done") || x.status.equals("failed")) && x.parent == null && !parents.contains(id)) {
                        x.status = "runnable";
                    }
                });
            }
            check();
            steps++;
        }
    }

    private void insert(String key) {
        long id = h.queryLong("INSERT INTO gen_durable (fsm, step, state, concurrency_key, eligible_at) VALUES "
                + "('model', 'a', '{}', " + (key == null ? "NULL" : "'" + key + "'") + ", '" + now.minusSeconds(60)
                + "') RETURNING id");
        Row row = new Row();
        row.key = key;
        row.eligible = now.minusSeconds(60);
        rows.put(id, row);
    }

    private void take(String w, ClaimedRow c) {
        Row row = rows.get(c.id());
        assertThat(row.status).as(where + "claimed row " + c.id() + " was runnable").isEqualTo("runnable");
        if (row.key != null) {
            assertThat(rows.values().stream().filter(x -> x.status.equals("executing") && row.key.equals(x.key)))
                    .as(where + "K = 1 key " + row.key + " already executing").isEmpty();
        }
        row.status = "executing";
        row.worker = w;
        row.token = c.claimToken();
        row.lease = c.leaseUntil();
        assertThat(row.lease).as(where + "a claim's lease").isEqualTo(now.plus(TTL));
        memory.get(w).put(c.id(), c.claimToken());
        running.add(new Transition.Claim(c.id(), w, c.claimToken()));
    }

    private void claim(String w, int demand) throws SQLException {
        List<ClaimedRow> claimed = tx(c -> claimSql.claim(c, QUEUE, w, demand, now, now.plus(TTL), new String[0], RUNNABLE));
        if (paused) {
            assertThat(claimed).as(where + "a claim of a paused queue").isEmpty();
        }
        for (ClaimedRow c : claimed) {
            take(w, c);
        }
    }

    private void claimById(String w, Random r) throws SQLException {
        List<Long> runnable = rows.entrySet().stream().filter(e -> e.getValue().status.equals("runnable") && e.getValue().key == null
                        && !e.getValue().eligible.isAfter(now))
                .map(Map.Entry::getKey).toList();
        if (runnable.isEmpty()) {
            return;
        }
        long id = runnable.get(r.nextInt(runnable.size()));
        ClaimedRow c = tx(conn -> claimSql.claimById(conn, id, QUEUE, w, now, now.plus(TTL), RUNNABLE));
        if (paused) {
            assertThat(c).as(where + "a claim by id in a paused queue").isNull();
            return;
        }
        assertThat(c).as(where + "claim by id of runnable row " + id).isNotNull();
        take(w, c);
    }

    private void reap() {
        Set<Long> expected = new HashSet<>();
        Set<Long> cancelled = new HashSet<>();
        rows.forEach((id, x) -> {
            if (x.status.equals("executing") && x.lease.isBefore(now)) {
                (x.cancelRequested ? cancelled : expected).add(id);
            }
        });
        int reaped = io.gendurable.impl.engine.EngineInternals.reaper(engine).runOnce();
        assertThat(reaped).as(where + "reaped " + expected + " (and ended cancelled " + cancelled + ")").isEqualTo(expected.size());
        for (long id : expected) {
            Row x = rows.get(id);
            x.status = "runnable";
            x.worker = null;
            x.token = 0;
            x.lease = null;
            x.eligible = now;
        }
        cancelled.forEach(this::endCancelled);
    }

    /** The row ends cancelled: its claim goes, and a parent awaiting its children counts it. */
    private void endCancelled(long id) {
        Row x = rows.get(id);
        x.status = "cancelled";
        x.worker = null;
        x.token = 0;
        x.lease = null;
        if (x.parent != null) {
            Row p = rows.get(x.parent);
            if (p.status.equals("awaiting_children")) {
                p.pending--;
                if (p.pending == 0) {
                    p.status = "runnable";
                    p.eligible = now;
                }
            }
        }
    }

    private void cancel(Random r) {
        List<Long> live = rows.entrySet().stream().filter(e -> List.of("runnable", "executing", "awaiting_signal",
                "awaiting_children").contains(e.getValue().status)).map(Map.Entry::getKey).toList();
        if (live.isEmpty()) {
            return;
        }
        long id = live.get(r.nextInt(live.size()));
        Row x = rows.get(id);
        var cancellation = engine.operations().cancel(id, "model");
        cancels++;
        boolean running = x.status.equals("executing") && !x.lease.isBefore(now);
        assertThat(cancellation.pending()).as(where + "cancel of " + id + " (" + x + ") pending").isEqualTo(running);
        if (running) {
            x.cancelRequested = true;
        } else {
            endCancelled(id);
        }
    }

    private void insertClaimed(String w) throws SQLException {
        io.gendurable.impl.insert.InsertSql.Row row = new io.gendurable.impl.insert.InsertSql.Row("model", 1, "a", "{}",
                QUEUE, 0, now, null, null, null, null, 1, null, null, null);
        io.gendurable.impl.insert.InsertSql.Answers a = tx(c -> insertSql.insert(c, List.of(row), now, Set.of(),
                new String[] {w}, now.plus(TTL), true));
        long id = a.inserted()[0].id();
        Row x = new Row();
        x.eligible = now;
        rows.put(id, x);
        if (paused) {
            assertThat(a.claimTokens()[0]).as(where + "an insert into a paused queue claims nothing").isZero();
            return;
        }
        assertThat(a.claimTokens()[0]).as(where + "the insert claimed its row").isNotZero();
        x.status = "executing";
        x.worker = w;
        x.token = a.claimTokens()[0];
        x.lease = now.plus(TTL);
        memory.get(w).put(id, x.token);
        running.add(new Transition.Claim(id, w, x.token));
        insertClaims++;
    }

    private boolean current(String w, long id, long token) {
        Row x = rows.get(id);
        return x != null && x.status.equals("executing") && w.equals(x.worker) && x.token == token;
    }

    private void heartbeat(String w) throws SQLException {
        Map<Long, Long> held = new HashMap<>(memory.get(w));
        if (held.isEmpty()) {
            return;
        }
        Instant until = now.plus(TTL);
        Set<Long> renewed = tx(c -> leaseSql.heartbeat(c, w, held, until));
        Set<Long> expected = new HashSet<>();
        held.forEach((id, token) -> {
            if (current(w, id, token)) {
                expected.add(id);
            }
        });
        assertThat(renewed).as(where + "renewed exactly the current claims presented").isEqualTo(expected);
        expected.forEach(id -> rows.get(id).lease = until);
    }

    private void release(String w, Random r, boolean fails) throws SQLException {
        Map<Long, Long> held = memory.get(w);
        Map<Long, Long> chosen = new HashMap<>();
        held.forEach((id, token) -> {
            if (r.nextInt(2) == 0) {
                chosen.put(id, token);
            }
        });
        chosen.keySet().forEach(held::remove);  // forgotten whatever the release does
        if (fails || chosen.isEmpty()) {
            return;
        }
        Set<Long> released = tx(c -> leaseSql.release(c, w, chosen, now, true));
        Set<Long> expected = new HashSet<>();
        chosen.forEach((id, token) -> {
            if (current(w, id, token) && !rows.get(id).cancelRequested) {
                expected.add(id);
            }
        });
        assertThat(released).as(where + "released exactly the current claims (a requested cancel's are left to it)")
                .isEqualTo(expected);
        for (long id : expected) {
            Row x = rows.get(id);
            x.status = "runnable";
            x.worker = null;
            x.token = 0;
            x.lease = null;
        }
    }

    private void flush(Random r) throws SQLException {
        List<Transition> batch = new ArrayList<>();
        List<String> kinds = new ArrayList<>();
        List<Transition.Claim> candidates = new ArrayList<>(running);
        candidates.sort(java.util.Comparator.comparingLong(Transition.Claim::token));
        for (Transition.Claim claim : candidates) {
            if (r.nextInt(3) != 0) {
                continue;
            }
            Row x = rows.get(claim.id());
            int kind = r.nextInt(6);
            kinds.add(switch (kind) {
                case 0 -> "done";
                case 1 -> "retry";
                case 2 -> "next";
                case 3 -> "continue";
                case 4 -> "park";
                default -> "fan-out";
            });
            batch.add(switch (kind) {
                case 0 -> new Transition.Finish(claim, Status.DONE, "{}", null, x.parent, null);
                case 1 -> new Transition.Retry(claim, null, now.plusSeconds(1), null, "boom");
                case 2 -> new Transition.Next(claim, step("b"), now, List.of(), null, null);
                case 3 -> new Transition.Continue(claim, step("b"), now, now.plus(TTL), List.of(), null, null);
                case 4 -> new Transition.Park(claim, "b", "{}", List.of("go"), null, List.of(), null, null);
                default -> new Transition.FanOut(claim, "joined", "{}", List.of(), List.of(child(claim.id()), child(claim.id())),
                        null, null);
            });
        }
        if (batch.isEmpty()) {
            return;
        }
        // a stale claim's outcome beside its row's current one, in one batch, now and then
        FlushSql.Flushed flushed = tx(c -> flushSql.flush(c, batch, now));
        assertThat(flushed.deferred()).as(where + "nothing else holds these rows").isEmpty();
        Set<Transition.Claim> expected = new HashSet<>();
        for (Transition t : batch) {
            if (current(t.claim().worker(), t.id(), t.claimToken())) {
                expected.add(t.claim());
            }
        }
        assertThat(flushed.committed()).as(where + "committed exactly the current claims of " + batch.size()
                + " outcomes " + kinds).isEqualTo(expected);
        staleOutcomes += batch.size() - expected.size();
        committedOutcomes += expected.size();
        if (batch.stream().map(Transition::id).distinct().count() < batch.size()) {
            sameRowBatches++;
        }
        Set<Long> fannedOut = new HashSet<>();
        for (int i = 0; i < batch.size(); i++) {
            Transition t = batch.get(i);
            String w = t.claim().worker();
            memory.get(w).remove(t.id(), t.claimToken());
            running.remove(t.claim());
            if (!expected.contains(t.claim())) {
                continue;  // stale: nothing moved
            }
            Row x = rows.get(t.id());
            if (x.cancelRequested) {
                assertThat(flushed.cancelled(t)).as(where + "the outcome of a row whose cancel was requested").isTrue();
                endCancelled(t.id());
                continue;
            }
            switch (kinds.get(i)) {
                case "done" -> {
                    x.status = "done";
                    if (x.parent != null) {
                        Row p = rows.get(x.parent);
                        if (p.status.equals("awaiting_children")) {
                            p.pending--;
                            if (p.pending == 0) {
                                p.status = "runnable";
                                p.eligible = now;
                            }
                        }
                    }
                }
                case "fan-out" -> {
                    x.status = "awaiting_children";
                    x.pending = 2;
                }
                case "park" -> x.status = "awaiting_signal";
                case "retry" -> {
                    x.status = "runnable";
                    x.eligible = now.plusSeconds(1);
                }
                case "next" -> {
                    x.status = "runnable";
                    x.eligible = now;
                }
                case "continue" -> {
                    // (a continue of a cancel-requested row ended it cancelled above)
                    Long token = flushed.continued().get(t.claim());
                    assertThat(token).as(where + "a committed continue's new token").isNotNull();
                    x.token = token;
                    x.lease = now.plus(TTL);
                    x.eligible = now;
                    memory.get(w).put(t.id(), token);
                    running.add(new Transition.Claim(t.id(), w, token));
                }
                default -> throw new IllegalStateException(kinds.get(i));
            }
            if (kinds.get(i).equals("fan-out")) {
                fanOuts++;
                fannedOut.add(t.id());
            }
            if (!x.status.equals("executing")) {
                x.worker = null;
                x.token = 0;
                x.lease = null;
            }
        }
        adoptChildren(fannedOut);
    }

    /** Children the flush inserted: exactly two for each committed fan-out, none for a stale one. */
    private void adoptChildren(Set<Long> fannedOut) throws SQLException {
        Map<Long, Long> children = new HashMap<>();
        try (Connection c = h.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, parent_id FROM " + h.schema() + ".gen_durable WHERE parent_id IS NOT NULL")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (!rows.containsKey(rs.getLong(1))) {
                        children.put(rs.getLong(1), rs.getLong(2));
                    }
                }
            }
        }
        Map<Long, Integer> perParent = new HashMap<>();
        children.values().forEach(p -> perParent.merge(p, 1, Integer::sum));
        Map<Long, Integer> expected = new HashMap<>();
        fannedOut.forEach(p -> expected.put(p, 2));
        assertThat(perParent).as(where + "children inserted per parent").isEqualTo(expected);
        children.forEach((id, parent) -> {
            Row row = new Row();
            row.parent = parent;
            row.eligible = Instant.parse("2025-12-31T00:00:00Z");
            rows.put(id, row);
        });
    }

    private static io.gendurable.impl.insert.InsertSql.Row child(long parent) {
        return new io.gendurable.impl.insert.InsertSql.Row("model", 1, "a", "{}", QUEUE, 0,
                Instant.parse("2025-12-31T00:00:00Z"), null, null, null, null, 1, parent, null, null);
    }

    private static Transition.NextStep step(String name) {
        return new Transition.NextStep(name, "{}", null, 1, KeyChange.KEEP, null);
    }

    /** The rows equal the model; K = 1 keys run one at a time; nobody renews a forgotten claim (checked by the lease). */
    private void check() throws SQLException {
        Map<Long, String> db = new HashMap<>();
        try (Connection c = h.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, status::text, locked_by, claim_token, lease_expires_at, cancel_requested IS NOT NULL FROM "
                        + h.schema() + ".gen_durable")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long id = rs.getLong(1);
                    Row x = rows.get(id);
                    assertThat(x).as(where + "row " + id + " in the model").isNotNull();
                    String status = rs.getString(2);
                    assertThat(status).as(where + "status of row " + id + " (model: " + x + ")").isEqualTo(x.status);
                    if (status.equals("executing")) {
                        assertThat(rs.getString(3)).as(where + "holder of row " + id).isEqualTo(x.worker);
                        assertThat(rs.getLong(4)).as(where + "token of row " + id).isEqualTo(x.token);
                        assertThat(rs.getTimestamp(5).toInstant()).as(where + "lease of row " + id).isEqualTo(x.lease);
                    } else {
                        assertThat(rs.getObject(4)).as(where + "no token on a row not executing: " + id).isNull();
                    }
                    if (status.equals("executing")) {
                        assertThat(rs.getBoolean(6)).as(where + "cancel requested of row " + id).isEqualTo(x.cancelRequested);
                    }
                    db.put(id, status);
                }
            }
        }
        assertThat(db.keySet()).as(where + "rows").isEqualTo(rows.keySet());
        Map<String, Integer> running = new HashMap<>();
        rows.values().stream().filter(x -> x.status.equals("executing") && x.key != null)
                .forEach(x -> running.merge(x.key, 1, Integer::sum));
        running.forEach((k, n) -> assertThat(n).as(where + "K = 1 key " + k + " executing").isEqualTo(1));
        // a claim no worker remembers is never renewed: its lease in the model stays as it was
        rows.forEach((id, x) -> {
            if (x.status.equals("executing")) {
                boolean remembered = Objects.equals(memory.get(x.worker).get(id), x.token);
                if (!remembered) {
                    assertThat(x.lease).as(where + "a forgotten claim's lease").isNotNull();
                }
            }
        });
    }

    private <T> T tx(EngineHarness.Work<T> work) throws SQLException {
        return h.inTransaction(work);
    }
}
