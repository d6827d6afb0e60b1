package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Inserts through an engine with no queues: {@code insertAll} in batches, and one by one. Nothing consumes them. */
final class InsertScenario implements Scenario.Body {
    private static final int BATCH = 1000;

    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        int threads = o.insertThreads;
        line.put("params", Map.of("threads", threads, "batch", BATCH, "batch_rows", o.insertRows,
                "single_rows", o.singleRows));
        Map<String, Object> results = new LinkedHashMap<>();
        try (Schema schema = Schema.fresh(db, o, "insert"); HikariDataSource ds = db.pool("bench-insert", o.pool);
             Node client = new Node("insert", ds, Engines.client(o, schema.name()), o.timerThreads, null,
                     new BenchFsms.NoopJob()).start()) {
            results.put("insert_all_1_thread", insertAll(client, ds, o.insertRows, 1));
            results.put("insert_all_" + threads + "_threads", insertAll(client, ds, o.insertRows, threads));
            results.put("single_1_thread", single(client, ds, Math.min(o.singleRows, 2000), 1));
            results.put("single_" + threads + "_threads", single(client, ds, o.singleRows, threads));
            results.put("rows_in_table", BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema.instances()));
            line.put("engine_metrics", Engines.metrics(client.engine.metrics(), null, 0));
        }
        line.put("results", results);
    }

    private static Map<String, Object> insertAll(Node client, HikariDataSource ds, int rows, int threads)
            throws Exception {
        CpuSplit cpu = CpuSplit.now(ds);
        long t0 = System.nanoTime();
        client.insertAll(rows, threads, BATCH, BenchFsms::noop);
        double s = (System.nanoTime() - t0) / 1e9;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rows", rows);
        m.put("threads", threads);
        m.put("batch", BATCH);
        m.put("rows_per_s", rows / s);
        m.put("cpu", cpu.since());
        return m;
    }

    private static Map<String, Object> single(Node client, HikariDataSource ds, int rows, int threads) throws Exception {
        long[] lat = new long[rows];
        AtomicLong next = new AtomicLong();
        CpuSplit cpu = CpuSplit.now(ds);
        long t0 = System.nanoTime();
        Parallel.run(threads, t -> {
            for (long i; (i = next.getAndIncrement()) < rows; ) {
                long s = System.nanoTime();
                client.engine.insert(BenchFsms.NoopJob.class, new BenchFsms.Args((int) i));
                lat[(int) i] = System.nanoTime() - s;
            }
        });
        double s = (System.nanoTime() - t0) / 1e9;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rows", rows);
        m.put("threads", threads);
        m.put("rows_per_s", rows / s);
        m.put("insert_ms", Percentiles.ms(lat));
        m.put("cpu", cpu.since());
        return m;
    }
}
