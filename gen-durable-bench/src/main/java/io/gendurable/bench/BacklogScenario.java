package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;

import java.util.LinkedHashMap;
import java.util.Map;

/** Loads a large backlog of no-op jobs, then burns down its first part with the rest waiting. */
final class BacklogScenario implements Scenario.Body {
    private static final int LOADERS = 2;

    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        int rows = o.backlog;
        int burn = Math.min(rows, o.backlogBurn);
        line.put("params", Map.of("rows", rows, "burn", burn, "insert_batch", o.backlogBatch));
        Map<String, Object> results = new LinkedHashMap<>();
        try (Schema schema = Schema.fresh(db, o, "backlog"); HikariDataSource ds = db.pool("bench-backlog", o.pool)) {
            try (Node loader = Node.loader(ds, Engines.client(o, schema.name()), new BenchFsms.NoopJob())) {
                CpuSplit cpu = CpuSplit.now(ds);
                long t0 = System.nanoTime();
                loader.insertAll(rows, LOADERS, o.backlogBatch, BenchFsms::noop);
                double s = (System.nanoTime() - t0) / 1e9;
                Map<String, Object> load = new LinkedHashMap<>();
                load.put("rows", rows);
                load.put("seconds", s);
                load.put("rows_per_s", rows / s);
                load.put("cpu", cpu.since());
                results.put("load", load);
            }
            BenchDb.exec(ds, "ANALYZE " + schema.instances());
            double baseline = Machine.heapUsedAfterGcMb();
            Progress progress = new Progress(k -> k.equals("done"));
            progress.arm(burn);
            try (Node worker = new Node("worker", ds, Engines.worker(o, schema.name()).toBuilder().migrateAtStart(false).build(),
                    o.timerThreads, progress, new BenchFsms.NoopJob())) {
                CpuSplit cpu = CpuSplit.now(ds);
                long t0 = System.nanoTime();
                worker.start();
                boolean complete = progress.await(o.stallSeconds);
                Map<String, Object> r = BurnDown.rates(progress, t0, burn, "jobs");
                r.put("cpu", cpu.since());
                r.put("heap_used_mb", Machine.heapUsedMb());
                r.put("heap_used_after_gc_mb", Machine.heapUsedAfterGcMb());
                r.put("heap_before_worker_after_gc_mb", baseline);
                r.put("complete", complete);
                results.put("burn", r);
                line.put("complete", complete);
                line.put("engine_metrics", Engines.metrics(worker.engine.metrics(), progress, (double) r.get("seconds")));
            }
            results.put("rows_left", BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema.instances()
                    + " WHERE status = 'runnable'"));
        }
        line.put("results", results);
    }
}
