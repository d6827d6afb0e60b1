package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.impl.config.LimitsConfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Live inserts on a table that started empty (a first deployment): the worker starts on a fresh
 * schema and runs {@code --live-warm} rounds of ten jobs while the table holds a few rows (its
 * statements are server-prepared and planned then), then {@code --live-loaders} threads insert
 * {@code --n} jobs in batches of 1,000 through the worker while it runs; timed from the first of those inserts until the last is done.
 * Beside it, in the same invocation, the preloaded burn-down of {@code jobs}:
 * {@code live_vs_preloaded} is the ratio of the medians.
 */
final class LiveScenario implements Scenario.Body {
    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        line.put("params", Map.of("n", o.n, "repeat", o.repeat, "live_warm", o.liveWarm, "live_loaders", o.liveLoaders));
        BurnDown burnDown = new BurnDown(o, db);
        List<Map<String, Object>> live = new ArrayList<>();
        List<Map<String, Object>> preloaded = new ArrayList<>();
        for (int r = 0; r < o.repeat; r++) {
            live.add(live(o, db));
            preloaded.add(burnDown.run(BurnDown.Work.noopJobs("preloaded", o.n), LimitsConfig.none()));
        }
        Map<String, List<Map<String, Object>>> runs = new LinkedHashMap<>();
        runs.put("live", live);
        runs.put("preloaded", preloaded);
        Map<String, Object> results = BurnDown.report(runs, "jobs", line);
        line.put("live_vs_preloaded", BurnDown.rate(results, "live", "jobs") / BurnDown.rate(results, "preloaded", "jobs"));
    }

    private static Map<String, Object> live(Options o, BenchDb db) throws Exception {
        BurnDown.Work w = BurnDown.Work.noopJobs("live", o.n);
        Map<String, Object> r = new LinkedHashMap<>();
        try (Schema schema = Schema.fresh(db, o, w.hint()); HikariDataSource ds = db.pool("bench-" + w.hint(), o.pool)) {
            Progress progress = new Progress(w.counts());
            // The inserts go through the worker itself, as an application's do in a server: its pokes are
            // in-process (gendurable.poke=local). A separate loader engine's inserts would reach the worker only
            // at its next idle poll (up to --max-poll-ms), which is what this scenario measured before.
            try (Node worker = new Node("worker", ds, Engines.worker(o, schema.name()).toBuilder()
                    .migrateAtStart(true).build(), o.timerThreads, progress, w.fsms()).start()) {
                for (int round = 0; round < o.liveWarm; round++) {
                    progress.arm(10);
                    worker.insertAll(10, 1, 10, w.row());
                    if (!progress.await(o.stallSeconds)) {
                        throw new IllegalStateException("live: warm-up round " + round + " stalled");
                    }
                }
                r.put("rows_before", BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema.instances()));
                progress.arm(o.n);
                CpuSplit cpu = CpuSplit.now(ds);
                long t0 = System.nanoTime();
                worker.insertAll(o.n, o.liveLoaders, 1000, w.row());
                boolean complete = progress.await(o.stallSeconds);
                r.putAll(BurnDown.rates(progress, t0, o.n, "events"));
                Map<String, Object> split = cpu.since();
                r.put("cpu", split);
                r.put("cpu_us_each", CeilingScenario.perStep(split, o.n));
                r.put("complete", complete);
                r.put("engine_metrics", Engines.metrics(worker.engine.metrics(), progress, (double) r.get("seconds")));
            }
        }
        Bench.log(String.format(Locale.ROOT, "live: %,.0f/s  cpu %s", (double) r.get("events_per_s"), r.get("cpu")));
        return r;
    }
}
