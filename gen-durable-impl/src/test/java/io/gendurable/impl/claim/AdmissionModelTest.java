package io.gendurable.impl.claim;

import io.gendurable.Status;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.flush.FlushSql;
import io.gendurable.impl.flush.Transition;
import io.gendurable.impl.step.Claimed;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Admission against a model: two nodes share one gate ({@code api}, limit 3) under different
 * {@code shards} (1 on node a, 2 on node b: a shard change rolling through) and one rate limit
 * ({@code r}: 2 per 10 s, burst 2), node b's clock running ahead of a's by a random skew of up to
 * 5 s. Random claims-with-admission by either node (the engine's own {@code Claimer} and limiter),
 * flushes of outcomes (their gate slots credited in-band), releases (slots given back), time,
 * reaps (slots leaked: the reaper does not credit), reconciler passes by either node, rate-bucket
 * sweeps, and finished rows made runnable again. After every step:
 * <ul>
 * <li>no gate key has more than 3 executing holders;</li>
 * <li>no more rows of the rate limit were admitted than its burst plus its rate over the time the
 *     most advanced clock has seen;</li>
 * <li>after a reconciler pass of a node, each key's free slots on the shards that node draws from
 *     are exactly 3 minus the key's holders: no slot leaked past a pass (or the key's counters are
 *     gone, when it is idle).</li>
 * </ul>
 * {@code mvn verify} runs a few seeds; {@code -Dadmission.model.seeds=20 -Dadmission.model.steps=500} runs more.
 */
@EngineTest
class AdmissionModelTest {
    private static final int LIMIT = 3;
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final String[] KEYS = {"api:1", "api:2"};

    private EngineHarness h;
    private final Engine[] nodes = new Engine[2];
    private final int[] shards = {1, 2};
    private Instant now;
    private long skewMillis;
    private final Instant start = Instant.parse("2026-01-01T00:00:00Z");
    private Instant furthest;
    private FlushSql flushSql;
    // id → (node, the claim and its slot)
    private final Map<Long, Object[]> running = new TreeMap<>();
    private long rateAdmitted;
    private long steps;
    private String where;
    private final Map<String, Long> counts = new TreeMap<>();

    /** The FSM the model's rows name: a node claims only rows of the FSMs it registered. Its steps never run here. */
    @io.gendurable.DurableFsm(name = "m")
    public static class M implements io.gendurable.Fsm<Object> {
        @Override
        public io.gendurable.Outcome step(String step, Object state, io.gendurable.StepContext ctx) {
            throw new AssertionError("the model claims and admits; it runs no step");
        }
    }

    private Instant clockOf(int node) {
        return node == 0 ? now : now.plusMillis(skewMillis);
    }

    @Test
    void random_admissions_flushes_releases_reaps_and_reconciler_passes_never_break_a_limit(EngineHarness h) throws Exception {
        this.h = h;
        h.start("model", c -> c.queues(Map.of())).stop();  // migrates the schema
        for (int n = 0; n < 2; n++) {
            int node = n;
            nodes[n] = h.build(node == 0 ? "a" : "b", c -> c.queues(Map.of("default", 8)).lease(TTL, Duration.ofSeconds(10))
                    .limits(new LimitsConfig(Map.of("r", new LimitsConfig.RateLimit("r", 2, Duration.ofSeconds(10), 2, 1)),
                            Map.of("api", new LimitsConfig.Gate("api", LIMIT, shards[node])))), () -> clockOf(node), new M());
        }
        flushSql = FlushSql.in(new Statements(new SchemaName(h.schema())));
        int seeds = Integer.getInteger("admission.model.seeds", 3);
        int perSeed = Integer.getInteger("admission.model.steps", 300);
        List<Long> list = io.gendurable.impl.support.ModelSeeds.of(seeds);
        for (long seed : list.subList(0, seeds)) {
            run(seed, perSeed);
        }
        System.out.println("admission model: " + steps + " steps over " + seeds + " seeds (" + list.subList(0, seeds) + "): " + counts);
        assertThat(steps).isEqualTo((long) seeds * perSeed);
        assertThat(counts.getOrDefault("gated admitted", 0L)).isPositive();
        assertThat(counts.getOrDefault("rate admitted", 0L)).isPositive();
    }

    private void count(String what, long n) {
        counts.merge(what, n, Long::sum);
    }

    private void run(long seed, int n) throws SQLException {
        Random r = new Random(seed);
        h.exec("DELETE FROM gen_durable; DELETE FROM gen_durable_buckets");
        running.clear();
        now = start;
        furthest = start;
        skewMillis = 0;
        rateAdmitted = 0;
        for (int i = 0; i < 16; i++) {
            insert(r);
        }
        for (int step = 0; step < n; step++) {
            int node = r.nextInt(2);
            int op = r.nextInt(100);
            where = "seed " + seed + ", step " + step + ": ";
            if (op < 30) {
                where += "pick by " + node;
                pick(node, 1 + r.nextInt(3));
            } else if (op < 50) {
                where += "flush";
                flush(r);
            } else if (op < 58) {
                where += "release by " + node;
                release(node, r);
            } else if (op < 70) {
                where += "time passes";
                now = now.plus(r.nextInt(5) == 0 ? TTL.plusSeconds(1) : Duration.ofMillis(200 + r.nextInt(5000)));
                skewMillis = r.nextInt(5001);
            } else if (op < 76) {
                where += "reap by " + node;
                reap(node);
            } else if (op < 86) {
                where += "reconciler pass of " + node;
                reconcile(node);
            } else if (op < 90) {
                where += "rate sweep of " + node;
                EngineInternals.gc(nodes[node]).sweepRateBuckets();
            } else {
                where += "finished rows runnable again";
                h.exec("UPDATE gen_durable SET status = 'runnable' WHERE status = 'done'");
            }
            furthest = furthest.isAfter(clockOf(1)) ? furthest : clockOf(1);
            check();
            steps++;
        }
    }

    private void insert(Random r) {
        String key = r.nextInt(3) == 0 ? null : KEYS[r.nextInt(KEYS.length)];
        String rate = r.nextInt(3) == 0 ? "'r'" : "NULL";
        h.exec("INSERT INTO gen_durable (fsm, step, state, concurrency_key, rate_limit, eligible_at) VALUES ('m', 'a', '{}', "
                + (key == null ? "NULL" : "'" + key + "'") + ", " + rate + ", '" + start.minusSeconds(60) + "')");
    }

    private Scheduler scheduler(int node) {
        return EngineInternals.schedulers(nodes[node]).get(0);
    }

    private void pick(int node, int demand) {
        for (Claimed p : scheduler(node).claimForTest(demand)) {
            running.put(p.row().id(), new Object[] {node, p});
            if (p.slot() != null) {
                count("gated admitted", 1);
            }
            if (p.row().rateLimit() != null) {
                rateAdmitted++;
                count("rate admitted", 1);
            }
        }
    }

    private void flush(Random r) throws SQLException {
        List<Transition> batch = new ArrayList<>();
        for (Map.Entry<Long, Object[]> e : running.entrySet()) {
            if (r.nextBoolean()) {
                Claimed p = (Claimed) e.getValue()[1];
                int node = (int) e.getValue()[0];
                batch.add(new Transition.Finish(new Transition.Claim(p.row().id(), scheduler(node).worker(), p.row().claimToken()),
                        Status.DONE, "{}", null, null, p.slot()));
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        try (Connection c = h.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (var s = c.createStatement()) {
                s.execute("SET LOCAL search_path TO " + h.schema());
            }
            FlushSql.Flushed f = flushSql.flush(c, batch, now);
            c.commit();
            count("outcomes committed", f.committed().size());
        }
        batch.forEach(t -> running.remove(t.id()));
    }

    private void release(int node, Random r) {
        List<Claimed> mine = new ArrayList<>();
        running.entrySet().removeIf(e -> {
            if ((int) e.getValue()[0] == node && r.nextBoolean()) {
                mine.add((Claimed) e.getValue()[1]);
                return true;
            }
            return false;
        });
        if (!mine.isEmpty()) {
            count("released", scheduler(node).releaseForTest(mine));
        }
    }

    private void reap(int node) {
        int reaped = EngineInternals.reaper(nodes[node]).runOnce();
        count("reaped", reaped);
        // the reaped claims are gone: their outcomes would be stale
        running.entrySet().removeIf(e -> h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + e.getKey()
                + " AND claim_token = " + ((Claimed) e.getValue()[1]).row().claimToken()) == 0);
    }

    private void reconcile(int node) {
        EngineInternals.gc(nodes[node]).reconcileGates();
        for (String key : KEYS) {
            long holders = holders(key);
            long rows = h.queryLong("SELECT count(*) FROM gen_durable_buckets WHERE kind = 'conc' AND key = '" + key + "'");
            if (rows == 0) {
                assertThat(holders).as(where + key + ": counters deleted while held").isZero();
                continue;
            }
            double free = h.queryLong("SELECT COALESCE(sum(available), 0)::bigint FROM gen_durable_buckets WHERE kind = 'conc' AND key = '"
                    + key + "' AND shard < " + shards[node]);
            assertThat((long) free).as(where + key + ": free slots after the pass, " + holders + " held").isEqualTo(Math.max(0, LIMIT - holders));
        }
        count("reconciler passes", 1);
    }

    private long holders(String key) {
        return h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing' AND concurrency_key = '" + key
                + "' AND concurrency_shard >= 0");
    }

    private void check() {
        for (String key : KEYS) {
            assertThat(holders(key)).as(where + key + " holders").isLessThanOrEqualTo(LIMIT);
        }
        double allowed = 2 + 2.0 * Duration.between(start, furthest).toMillis() / 10_000.0;
        assertThat((double) rateAdmitted).as(where + "rate admissions up to " + furthest).isLessThanOrEqualTo(allowed + 1e-9);
    }
}
