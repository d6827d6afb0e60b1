package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Loads a large backlog of no-op jobs, then burns down its first part with the rest waiting. With
 * {@code --backlog-done}, that many completed rows are in the table first (retention: the finished
 * rows the GC keeps), written by {@code INSERT ... SELECT generate_series} as copies of a job the
 * engine inserted, with status {@code done} and ended an hour ago (inside the default retention,
 * so the worker's GC leaves them). With {@code --backlog-vacuum=on} the table is vacuumed and
 * analyzed once loaded (else only analyzed). Beside the burn's rate: the claim statement's cost
 * ({@link ClaimPlan}) before and after the burn, the table's and indexes' sizes and tuples
 * before and after it, and the WAL written meanwhile (the server's, every database).
 */
final class BacklogScenario implements Scenario.Body {
    private static final int LOADERS = 2;

    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        int rows = o.backlog;
        int burn = Math.min(rows, o.backlogBurn);
        line.put("params", Map.of("rows", rows, "burn", burn, "insert_batch", o.backlogBatch, "done_rows", o.backlogDone,
                "vacuum", o.backlogVacuum));
        Map<String, Object> results = new LinkedHashMap<>();
        try (Schema schema = Schema.fresh(db, o, "backlog"); HikariDataSource ds = db.pool("bench-backlog", o.pool)) {
            try (Node loader = Node.loader(ds, Engines.client(o, schema.name()), new BenchFsms.NoopJob())) {
                if (o.backlogDone > 0) {
                    results.put("done_rows", preloadDone(ds, loader, schema, o.backlogDone));
                }
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
            long tv = System.nanoTime();
            BenchDb.exec(ds, (o.backlogVacuum ? "VACUUM (ANALYZE) " : "ANALYZE ") + schema.instances());
            results.put(o.backlogVacuum ? "vacuum_analyze_s" : "analyze_s", (System.nanoTime() - tv) / 1e9);
            results.put("table_before_burn", TableStats.of(ds, schema.instances()));
            results.put("claim_plan", ClaimPlan.measure(ds, schema.name(), "default", 64, 5));
            long wal0 = TableStats.walLsn(ds);
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
            results.put("burn_wal_bytes", TableStats.walLsn(ds) - wal0);
            results.put("table_after_burn", TableStats.of(ds, schema.instances()));
            results.put("rows_left", BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema.instances()
                    + " WHERE status = 'runnable'"));
            if (results.get("rows_left") instanceof Long left && left > 0) {
                // the claim through the pick index's dead entries the burn left (until a vacuum)
                results.put("claim_plan_after_burn", ClaimPlan.measure(ds, schema.name(), "default", 64, 5));
            }
            if (o.backlogDone > 0) {
                results.put("done_rows_after", BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema.instances()
                        + " WHERE status = 'done'"));
            }
        }
        line.put("results", results);
    }

    /** Chunks of the done-row preload: one statement (and transaction) each. */
    private static final int DONE_CHUNK = 1_000_000;

    /**
     * Writes {@code n} done rows as copies of one job the engine inserted (then deleted): every
     * column but the identity, the generated ones, status and the timestamps.
     *
     * @return rows, seconds, rows/s
     */
    private static Map<String, Object> preloadDone(HikariDataSource ds, Node loader, Schema schema, int n) throws Exception {
        String t = schema.instances();
        loader.insertAll(1, 1, 1, BenchFsms::noop);
        long template = BenchDb.queryLong(ds, "SELECT min(id) FROM " + t);
        String cols;
        try (var c = ds.getConnection(); var ps = c.prepareStatement("SELECT string_agg(quote_ident(column_name), ', ' "
                + "ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema = ? AND table_name = 'gen_durable' "
                + "AND is_generated = 'NEVER' AND identity_generation IS NULL "
                + "AND column_name NOT IN ('status', 'inserted_at', 'updated_at')")) {
            ps.setString(1, schema.name());
            try (var rs = ps.executeQuery()) {
                rs.next();
                cols = rs.getString(1);
            }
        }
        long t0 = System.nanoTime();
        for (int done = 0; done < n; done += DONE_CHUNK) {
            int chunk = Math.min(DONE_CHUNK, n - done);
            BenchDb.exec(ds, "INSERT INTO " + t + " (" + cols + ", status, inserted_at, updated_at) SELECT " + cols
                    + ", 'done', now() - interval '1 hour', now() - interval '1 hour' FROM " + t
                    + ", generate_series(1, " + chunk + ") WHERE id = " + template);
            Bench.log(String.format(java.util.Locale.ROOT, "backlog: %,d of %,d done rows written", done + chunk, n));
        }
        BenchDb.exec(ds, "DELETE FROM " + t + " WHERE id = " + template);
        double s = (System.nanoTime() - t0) / 1e9;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rows", n);
        m.put("seconds", s);
        m.put("rows_per_s", n / s);
        m.put("how", "INSERT ... SELECT generate_series, copies of an inserted job with status done, ended an hour ago");
        return m;
    }
}
