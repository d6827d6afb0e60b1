package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.NewInstance;
import io.gendurable.impl.runtime.EngineEvents;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * A burn-down of {@code n} ordinary no-op jobs beside rows loaded before them (a hot key's
 * backlog, a far-future backlog, or none): the loader inserts {@code beside} rows first, then the
 * ordinary ones; a worker (the bench's engine configuration) is timed until the ordinary jobs
 * are all committed. The rows loaded first are told apart by id (they have the lower ones) and
 * counted on their own. Then the claim's plan is measured ({@link ClaimPlan}) on what is left,
 * after {@code beforePlan} ran (e.g. to hold a hot key's row executing).
 */
final class BesideBurn {
    private BesideBurn() {
    }

    /**
     * @param beside     rows loaded before the ordinary ones (0: none)
     * @param besideRow  the {@code i}-th of them
     * @param ordinary   the {@code i}-th ordinary row
     * @param beforePlan SQL run before the claim's plan is measured (with {@code %s} for the table), or null
     * @return {@code ordinary} (the ordinary jobs' rates), {@code beside_done} and {@code beside_per_s},
     * {@code claim_plan}, {@code engine_metrics}, {@code complete}
     */
    static Map<String, Object> run(Options o, BenchDb db, String hint, int beside, IntFunction<NewInstance> besideRow,
                                   IntFunction<NewInstance> ordinary, String beforePlan) throws Exception {
        Map<String, Object> r = new LinkedHashMap<>();
        try (Schema schema = Schema.fresh(db, o, hint); HikariDataSource ds = db.pool("bench-" + hint, o.pool)) {
            long boundary;
            try (Node loader = Node.loader(ds, Engines.client(o, schema.name()), new BenchFsms.NoopJob())) {
                long t0 = System.nanoTime();
                if (beside > 0) {
                    loader.insertAll(beside, 2, 5000, besideRow);
                }
                r.put("beside_load_s", (System.nanoTime() - t0) / 1e9);
                boundary = BenchDb.queryLong(ds, "SELECT coalesce(max(id), 0) FROM " + schema.instances());
                loader.insertAll(o.n, 1, 1000, ordinary);
            }
            BenchDb.exec(ds, "VACUUM ANALYZE " + schema.instances());
            r.put("claim_plan_before", ClaimPlan.measure(ds, schema.name(), "default", 64, 5));
            Progress jobs = new Progress(k -> k.equals("done"));
            Progress other = new Progress(k -> k.equals("done"));
            jobs.arm(o.n);
            other.arm(Math.max(1, beside));
            EngineEvents split = new EngineEvents() {
                @Override
                public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos,
                                         String error, boolean stale) {
                    (id > boundary ? jobs : other).stepFinished(id, fsm, step, queue, outcome, nanos, error, stale);
                }

                @Override
                public void flushed(int outcomes, long nanos) {
                    jobs.flushed(outcomes, nanos);
                }
            };
            try (Node worker = new Node("worker", ds, Engines.worker(o, schema.name()).toBuilder().migrateAtStart(false).build(),
                    o.timerThreads, split, new BenchFsms.NoopJob())) {
                CpuSplit cpu = CpuSplit.now(ds);
                long t0 = System.nanoTime();
                worker.start();
                boolean complete = jobs.await(o.stallSeconds);
                Map<String, Object> ordinaryRates = BurnDown.rates(jobs, t0, o.n, "jobs");
                double seconds = (double) ordinaryRates.get("seconds");
                Map<String, Object> split2 = cpu.since();
                ordinaryRates.put("cpu", split2);
                ordinaryRates.put("cpu_us_each", CeilingScenario.perStep(split2, o.n));
                r.put("ordinary", ordinaryRates);
                r.put("beside_done", other.count());
                r.put("beside_per_s", other.count() / seconds);
                r.put("complete", complete);
                r.put("engine_metrics", Engines.metrics(worker.engine.metrics(), jobs, seconds));
            }
            long done = BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema.instances() + " WHERE status = 'done' AND id > " + boundary);
            r.put("rows_done", done);
            if (done != o.n) {
                r.put("complete", false);
            }
            r.put("beside_left", BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema.instances()
                    + " WHERE status = 'runnable' AND id <= " + boundary));
            if (beforePlan != null) {
                ClaimPlan.exec(ds, beforePlan.formatted(schema.instances()));
            }
            BenchDb.exec(ds, "VACUUM ANALYZE " + schema.instances());
            // the remaining rows, another batch of ordinary work at the tail, and the claim's cost over them
            try (Node loader = Node.loader(ds, Engines.client(o, schema.name()).toBuilder().migrateAtStart(false).build(),
                    new BenchFsms.NoopJob())) {
                loader.insertAll(1000, 1, 1000, ordinary);
            }
            r.put("claim_plan", ClaimPlan.measure(ds, schema.name(), "default", 64, 5));
        }
        Map<?, ?> ord = (Map<?, ?>) r.get("ordinary");
        Bench.log(String.format(Locale.ROOT, "%s: ordinary %,.0f jobs/s, beside %d done (%,.0f/s), claim %s ms / %s buffers",
                hint, (double) ord.get("jobs_per_s"), (long) r.get("beside_done"), (double) r.get("beside_per_s"),
                ((Map<?, ?>) r.get("claim_plan")).get("execution_ms"), ((Map<?, ?>) r.get("claim_plan")).get("buffers")));
        return r;
    }
}
