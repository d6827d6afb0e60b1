package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.impl.config.LimitsConfig;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * The measurement most scenarios are made of: pre-insert {@code n} instances through an engine
 * with no queues, then start a worker engine and time it from {@code start()} until
 * {@code n x perInstance} counted outcomes are committed. Each run has a fresh schema and pool.
 */
final class BurnDown {
    /**
     * What a burn-down inserts and counts.
     *
     * @param hint        names the schema and the pool
     * @param perInstance counted outcomes per instance
     * @param counts      which outcome kinds count
     * @param fsms        what the engines register
     */
    record Work(String hint, int n, int perInstance, IntFunction<NewInstance> row, Predicate<String> counts,
                Fsm<?>... fsms) {
        /** @return {@code n} no-op jobs inserted with {@code options(i)}, each counted when done */
        static Work noopJobs(String hint, int n, IntFunction<InsertOptions> options) {
            return new Work(hint, n, 1, i -> NewInstance.of(BenchFsms.NoopJob.class, new BenchFsms.Args(i),
                    options.apply(i)), kind -> kind.equals("done"), new BenchFsms.NoopJob());
        }

        static Work noopJobs(String hint, int n) {
            return noopJobs(hint, n, i -> InsertOptions.defaults());
        }
    }

    private final Options o;
    private final BenchDb db;

    BurnDown(Options o, BenchDb db) {
        this.o = o;
        this.db = db;
    }

    /** @return the run's figures, its {@code engine_metrics} among them, counted as {@code events} */
    Map<String, Object> run(Work w, LimitsConfig limits) throws Exception {
        Map<String, Object> r = new LinkedHashMap<>();
        try (Schema schema = Schema.fresh(db, o, w.hint()); HikariDataSource ds = db.pool("bench-" + w.hint(), o.pool)) {
            try (Node loader = Node.loader(ds, Engines.client(o, schema.name()).toBuilder().limits(limits).build(), w.fsms())) {
                long t0 = System.nanoTime();
                loader.insertAll(w.n(), 1, 1000, w.row());
                r.put("preinsert_rows_per_s", w.n() * 1e9 / (System.nanoTime() - t0));
            }
            BenchDb.exec(ds, "ANALYZE " + schema.instances());
            long target = (long) w.n() * w.perInstance();
            Progress progress = new Progress(w.counts());
            progress.arm(target);
            // the schema's migration and the pre-insert were compiled meanwhile: not this run's CPU
            r.put("jit_quiet_wait_s", Machine.awaitJitQuiet(3_000));
            try (Node worker = new Node("worker", ds, Engines.worker(o, schema.name()).toBuilder().limits(limits)
                    .migrateAtStart(false).build(), o.timerThreads, progress, w.fsms())) {
                CpuSplit cpu = CpuSplit.now(ds);
                CpuSplit.Threads threads = CpuSplit.Threads.now();
                long t0 = System.nanoTime();
                worker.start();
                boolean complete = progress.await(o.stallSeconds);
                r.putAll(rates(progress, t0, target, "events"));
                Map<String, Object> split = cpu.since();
                r.put("cpu", split);
                r.put("cpu_us_each", CeilingScenario.perStep(split, target));
                r.put("jvm_threads_cpu_s", CpuSplit.Threads.now().since(threads));
                r.put("heap_used_mb", Machine.heapUsedMb());
                r.put("outcomes", progress.outcomes());
                r.put("complete", complete);
                r.put("engine_metrics", Engines.metrics(worker.engine.metrics(), progress, (double) r.get("seconds")));
            }
            long done = BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema.instances() + " WHERE status = 'done'");
            r.put("rows_done", done);
            if (done != w.n()) {
                r.put("complete", false);
            }
        }
        if (!Boolean.TRUE.equals(r.get("complete"))) {
            Bench.log(w.hint() + ": INCOMPLETE " + r);
        } else {
            Bench.log(String.format(Locale.ROOT, "%s: %,.0f/s  cpu %s  jvm threads %s", w.hint(),
                    (double) r.get("events_per_s"), r.get("cpu"), r.get("jvm_threads_cpu_s")));
        }
        return r;
    }

    /** @return the count reached ({@code unit}), wall seconds to it, the rate, the steady rate, the ramp-up */
    static Map<String, Object> rates(Progress p, long t0, long target, String unit) {
        Map<String, Object> r = new LinkedHashMap<>();
        boolean reached = p.tEnd() != 0;
        long end = reached ? p.tEnd() : System.nanoTime();
        long counted = reached ? target : p.count();
        double seconds = (end - t0) / 1e9;
        r.put(unit, counted);
        r.put("seconds", seconds);
        r.put(unit + "_per_s", counted / seconds);
        r.put("steady_" + unit + "_per_s", p.steadyRate());
        r.put("first_10pct_s", p.t10() == 0 ? null : (p.t10() - t0) / 1e9);
        return r;
    }

    /**
     * @param runs burn-downs of one kind (their {@code events} figures renamed here to {@code unit})
     * @return the run with the median rate, plus every run's rate under {@code runs_<unit>_per_s}
     */
    static Map<String, Object> median(List<Map<String, Object>> runs, String unit) {
        List<Map<String, Object>> sorted = new ArrayList<>();
        for (Map<String, Object> r : runs) {
            Map<String, Object> renamed = new LinkedHashMap<>();
            r.forEach((k, v) -> renamed.put(k.replace("events", unit), v));
            sorted.add(renamed);
        }
        List<Object> all = sorted.stream().map(r -> r.get(unit + "_per_s")).toList();
        sorted.sort(Comparator.comparingDouble(r -> (double) r.get(unit + "_per_s")));
        Map<String, Object> m = new LinkedHashMap<>(sorted.get((sorted.size() - 1) / 2));
        m.put("runs_" + unit + "_per_s", all);
        return m;
    }

    /**
     * Reports burn-downs of several variants: each variant's median run under
     * {@code results.<variant>}, its engine metrics under {@code engine_metrics.<variant>}, and
     * {@code complete} when every run was.
     *
     * @param runs the runs by variant, in the order to report them
     * @return the line's {@code results}, for the ratios between the variants
     */
    static Map<String, Object> report(Map<String, List<Map<String, Object>>> runs, String unit,
                                      Map<String, Object> line) {
        Map<String, Object> results = new LinkedHashMap<>();
        Map<String, Object> metrics = new LinkedHashMap<>();
        runs.forEach((variant, variantRuns) -> {
            Map<String, Object> median = median(variantRuns, unit);
            metrics.put(variant, median.remove("engine_metrics"));
            results.put(variant, median);
        });
        line.put("results", results);
        line.put("complete", runs.values().stream().allMatch(BurnDown::allComplete));
        line.put("engine_metrics", metrics);
        return results;
    }

    /** @return the {@code <unit>_per_s} of a variant in {@link #report}'s results */
    static double rate(Map<String, Object> results, String variant, String unit) {
        return (double) ((Map<?, ?>) results.get(variant)).get(unit + "_per_s");
    }

    static boolean allComplete(List<Map<String, Object>> runs) {
        return runs.stream().allMatch(r -> Boolean.TRUE.equals(r.get("complete")));
    }
}
