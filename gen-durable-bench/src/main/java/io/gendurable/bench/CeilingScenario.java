package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The database's ceiling for the engine's shape, no engine involved: a bare JDBC loop on the
 * engine's own table and indexes that claims 100 rows ({@code SKIP LOCKED}, stamping a fencing
 * token as the engine's claim does), commits, then commits their next state ({@code done}) in one
 * {@code UPDATE … FROM unnest} matched on the token, as the engine's flush does.
 *
 * <p>A figure to divide by, so it is measured warm and long: {@code --ceiling-n} rows (100,000)
 * per run, loaded once per thread count and set back to {@code runnable} (then vacuumed) before
 * each run; one unmeasured warm-up run before the first measured one; {@code --ceiling-runs}
 * (3) runs at each of 1, 4 and 8 threads, the median reported per thread count, and the best
 * median as {@code best_steps_per_s}.
 */
final class CeilingScenario implements Scenario.Body {
    private static final int BATCH = 100;
    private static final int[] THREADS = {1, 4, 8};

    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        int n = o.ceilingN;
        line.put("params", Map.of("n", n, "batch", BATCH, "runs", o.ceilingRuns, "threads", List.of(1, 4, 8),
                "warmup_runs", 1));
        Map<String, Object> results = new LinkedHashMap<>();
        boolean complete = true;
        boolean warm = false;
        double best = 0;
        int bestThreads = 0;
        for (int threads : THREADS) {
            try (Schema schema = Schema.fresh(db, o, "ceiling");
                 HikariDataSource ds = db.pool("bench-ceiling", Math.max(4, threads + 1))) {
                try (Node loader = Node.loader(ds, Engines.client(o, schema.name()), new BenchFsms.NoopJob())) {
                    loader.insertAll(n, 2, 5000, BenchFsms::noop);
                }
                String t = schema.instances();
                BenchDb.exec(ds, "VACUUM ANALYZE " + t);
                if (!warm) {
                    warm = true;
                    long steps = loop(ds, t, threads);
                    complete &= steps == n;
                    reset(ds, t);
                    Bench.log("ceiling warm-up: " + steps + " steps");
                }
                List<Map<String, Object>> runs = new ArrayList<>();
                for (int r = 0; r < o.ceilingRuns; r++) {
                    CpuSplit cpu = CpuSplit.now(ds);
                    long t0 = System.nanoTime();
                    long steps = loop(ds, t, threads);
                    double sec = (System.nanoTime() - t0) / 1e9;
                    Map<String, Object> run = new LinkedHashMap<>();
                    run.put("threads", threads);
                    run.put("steps", steps);
                    run.put("seconds", sec);
                    run.put("steps_per_s", steps / sec);
                    Map<String, Object> split = cpu.since();
                    run.put("cpu", split);
                    run.put("cpu_us_per_step", perStep(split, steps));
                    runs.add(run);
                    complete &= steps == n;
                    Bench.log(String.format(java.util.Locale.ROOT, "ceiling %d threads: %,.0f steps/s  cpu %s",
                            threads, steps / sec, split));
                    reset(ds, t);
                }
                Map<String, Object> median = BurnDown.median(runs, "steps");
                double rate = (double) median.get("steps_per_s");
                if (rate > best) {
                    best = rate;
                    bestThreads = threads;
                }
                results.put("threads_" + threads, median);
            }
        }
        results.put("best_steps_per_s", best);
        results.put("best_threads", bestThreads);
        line.put("results", results);
        line.put("complete", complete);
    }

    /**
     * @return the JVM's and the database's CPU microseconds per step, from a {@link CpuSplit}; with
     * the JVM's JIT and GC threads' shares of {@code jvm_us} when known
     */
    static Map<String, Object> perStep(Map<String, Object> split, long steps) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String k : List.of("jvm_cpu_s", "db_cpu_s", "jvm_jit_cpu_s", "jvm_gc_cpu_s")) {
            Object v = split.get(k);
            if (v instanceof Double d && steps > 0) {
                m.put(k.replace("_cpu_s", "_us"), d * 1e6 / steps);
            }
        }
        return m;
    }

    /** Sets every row back to runnable and vacuums, so the next run starts from the same table. */
    private static void reset(HikariDataSource ds, String t) {
        BenchDb.exec(ds, "UPDATE " + t + " SET status = 'runnable', locked_by = NULL, lease_expires_at = NULL, "
                + "claim_token = NULL, result = NULL");
        BenchDb.exec(ds, "VACUUM ANALYZE " + t);
    }

    /** @return the rows set done by {@code threads} threads claiming and finishing until none is left */
    private static long loop(HikariDataSource ds, String t, int threads) throws Exception {
        String claimSql = "UPDATE " + t + " g SET status = 'executing', locked_by = ?, "
                + "lease_expires_at = now() + interval '1 minute', updated_at = now(), "
                + "claim_token = nextval('" + t + "_claim_token') "
                + "FROM (SELECT id FROM " + t + " WHERE queue = 'default' AND status = 'runnable' AND NOT key_blocked "
                + "AND eligible_at <= now() ORDER BY priority, eligible_at LIMIT ? "
                + "FOR NO KEY UPDATE SKIP LOCKED) c WHERE g.id = c.id RETURNING g.id, g.state, g.claim_token";
        String doneSql = "UPDATE " + t + " g SET status = 'done', locked_by = NULL, lease_expires_at = NULL, "
                + "claim_token = NULL, result = NULL, updated_at = now() "
                + "FROM unnest(?::bigint[], ?::bigint[]) AS u(id, token) "
                + "WHERE g.id = u.id AND g.claim_token = u.token AND g.locked_by = ? AND g.status = 'executing'";
        AtomicLong steps = new AtomicLong();
        Parallel.run(threads, th -> {
            String worker = "ceiling-" + th;
            try (var c = ds.getConnection(); var claim = c.prepareStatement(claimSql);
                 var done = c.prepareStatement(doneSql)) {
                c.setAutoCommit(false);
                while (true) {
                    claim.setString(1, worker);
                    claim.setInt(2, BATCH);
                    List<Long> ids = new ArrayList<>(BATCH);
                    List<Long> tokens = new ArrayList<>(BATCH);
                    try (var rs = claim.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getLong(1));
                            rs.getString(2);
                            tokens.add(rs.getLong(3));
                        }
                    }
                    c.commit();
                    if (ids.isEmpty()) {
                        return;
                    }
                    done.setArray(1, c.createArrayOf("bigint", ids.toArray()));
                    done.setArray(2, c.createArrayOf("bigint", tokens.toArray()));
                    done.setString(3, worker);
                    steps.addAndGet(done.executeUpdate());
                    c.commit();
                }
            }
        });
        return steps.get();
    }
}
