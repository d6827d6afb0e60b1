package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.NewInstance;
import io.gendurable.impl.config.ConfigParts;
import io.gendurable.impl.config.EngineConfig;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * A long live run bounded by time: {@code --soak-loaders} threads insert no-op jobs on one queue
 * at a fixed offered rate ({@code --soak-rate} jobs/s, in batches of {@code --soak-batch}, paced)
 * for {@code --soak-minutes} through one engine that also burns them down (one node: its pokes are
 * in-process and an insert may start its own row, as in {@code latency}) with the engine's GC at its
 * defaults (or {@code --soak-gc-retention}). Every {@code --soak-sample-s} seconds it prints a
 * {@code soak-sample} line (and keeps it for the final line): offered and completed jobs/s, the
 * claim latency of the jobs that started in the window (the insert call's start to the step's
 * start, as {@code latency} measures it), the runnable backlog, the instances table's and each
 * index's size, its live and dead tuples and vacuums (pg_stat_user_tables), the WAL written
 * (the server's, all databases), CPU. Then the inserts stop, the backlog drains, and the line has
 * the table before and after and the totals. The server's autovacuum setting is read and recorded;
 * the run refuses to start with autovacuum off unless {@code --require-autovacuum=off}.
 */
final class SoakScenario implements Scenario.Body {
    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        if (o.soakRate < 1 || o.soakMinutes <= 0 || o.soakSampleS < 1) {
            throw new IllegalArgumentException("soak: --soak-rate, --soak-minutes and --soak-sample-s must be positive");
        }
        long minutesNanos = TimeUnit.SECONDS.toNanos(Math.round(o.soakMinutes * 60));
        int rate = o.soakRate;
        int batch = Math.max(1, Math.min(o.soakBatch, rate));
        int loaders = Math.max(1, o.soakLoaders);
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("minutes", o.soakMinutes);
        params.put("offered_rate_per_s", rate);
        params.put("insert_batch", batch);
        params.put("loaders", loaders);
        params.put("sample_s", o.soakSampleS);
        params.put("queue", "default");
        params.put("concurrency", o.concurrency);
        line.put("params", params);
        @SuppressWarnings("unchecked")
        java.util.function.Consumer<Map<String, Object>> emit = line.get(Bench.EMIT) instanceof java.util.function.Consumer<?> c
                ? (java.util.function.Consumer<Map<String, Object>>) c : m -> System.out.println(Json.line(m));
        Map<String, Object> results = new LinkedHashMap<>();
        line.put("results", results);
        Recorder recorder = new Recorder(Math.max(1024, (int) Math.min(50_000_000L, (long) rate * o.soakSampleS * 2)));
        SoakJob job = new SoakJob(recorder);
        try (Schema schema = Schema.fresh(db, o, "soak"); HikariDataSource ds = db.pool("bench-soak", o.pool);
             HikariDataSource stats = db.pool("bench-soak-stats", 2)) {
            Map<String, Object> av = TableStats.autovacuumSettings(stats);
            results.put("autovacuum", av);
            boolean avOn = "on".equals(av.get("autovacuum"));
            line.put("autovacuum", avOn ? "on" : "off");
            if (!avOn) {
                if (!Boolean.FALSE.equals(o.requireAutovacuum)) {
                    throw new IllegalStateException("soak: the server's autovacuum is " + av.get("autovacuum")
                            + "; turn it on (ALTER SYSTEM SET autovacuum = on; SELECT pg_reload_conf()) or pass "
                            + "--require-autovacuum=off to measure without it");
                }
                Bench.log("soak: WARNING autovacuum is OFF at the server: every figure of this run is without it");
            }
            EngineConfig workerConfig = Engines.worker(o, schema.name()).toBuilder().migrateAtStart(false).build();
            ConfigParts.GcConfig defaults = workerConfig.gc();
            if (!o.soakGcRetention.isBlank()) {
                workerConfig = workerConfig.toBuilder().gc(new ConfigParts.GcConfig(defaults.enabled(), defaults.interval(),
                        Duration.parse(o.soakGcRetention), defaults.failedRetention(), defaults.batch())).build();
            }
            ConfigParts.GcConfig gc = workerConfig.gc();
            Map<String, Object> gcLine = new LinkedHashMap<>();
            gcLine.put("enabled", gc.enabled());
            gcLine.put("interval", gc.interval().toString());
            gcLine.put("retention", gc.retention().toString());
            gcLine.put("failed_retention", gc.failedRetention().toString());
            gcLine.put("batch", gc.batch());
            gcLine.put("engine_defaults", o.soakGcRetention.isBlank());
            gcLine.put("on_node", "the one node, which inserts and runs the jobs");
            params.put("gc", gcLine);
            Bench.log("soak: " + rate + " jobs/s offered for " + o.soakMinutes + " min, GC " + gcLine
                    + ", autovacuum " + av.get("autovacuum"));

            Progress progress = new Progress(k -> k.equals("done"));
            progress.arm(Long.MAX_VALUE);
            // the inserts go through the worker itself, as in latency: its pokes are in-process
            // (gendurable.poke=local) and an insert may start its own row (start-at-insert)
            EngineConfig config = workerConfig.toBuilder().migrateAtStart(true).build();
            try (Node worker = new Node("worker", ds, config, o.timerThreads, progress, job).start()) {
                String table = schema.instances();
                Map<String, Object> before = TableStats.of(stats, table);
                results.put("before", before);
                long wal0 = TableStats.walLsn(stats);
                LongAdder inserted = new LongAdder();
                AtomicReference<Throwable> loaderError = new AtomicReference<>();
                long period = TimeUnit.SECONDS.toNanos(1) * batch / rate;
                long start = System.nanoTime();
                long end = start + minutesNanos;
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < loaders; t++) {
                    int first = t;
                    Thread th = new Thread(() -> {
                        try {
                            for (long b = first; ; b += loaders) {
                                long due = start + b * period;
                                if (due >= end) {
                                    return;
                                }
                                Parallel.parkUntil(due);
                                List<NewInstance> rows = new ArrayList<>(batch);
                                long sent = System.nanoTime();
                                for (int i = 0; i < batch; i++) {
                                    rows.add(NewInstance.of(SoakJob.class, new Stamp(sent)));
                                }
                                worker.engine.insertAll(rows);
                                inserted.add(batch);
                            }
                        } catch (Throwable e) {
                            loaderError.compareAndSet(null, e);
                        }
                    }, "soak-loader-" + t);
                    th.setDaemon(true);
                    threads.add(th);
                    th.start();
                }
                List<Map<String, Object>> samples = new ArrayList<>();
                long lastInserted = 0;
                long lastDone = 0;
                long lastWal = wal0;
                long lastT = start;
                long[] lastCounters = counters(worker.engine.metrics());
                CpuSplit cpu = CpuSplit.now(stats);
                List<Double> p50s = new ArrayList<>();
                double worstP99 = 0;
                long sampleNanos = TimeUnit.SECONDS.toNanos(o.soakSampleS);
                boolean drained = false;
                long drainStart = 0;
                for (int k = 1; ; k++) {
                    long until = Math.min(start + k * sampleNanos, end);
                    boolean loading = true;
                    while (System.nanoTime() < until && loaderError.get() == null) {
                        Thread.sleep(100);
                    }
                    if (System.nanoTime() >= end || loaderError.get() != null) {
                        loading = false;
                    }
                    long now = System.nanoTime();
                    long ins = inserted.sum();
                    long done = progress.count();
                    long wal = TableStats.walLsn(stats);
                    double secs = (now - lastT) / 1e9;
                    Recorder.Window w = recorder.swap();
                    Map<String, Object> s = new LinkedHashMap<>();
                    s.put("sample", k);
                    s.put("at", Instant.now().toString());
                    s.put("t_s", (now - start) / 1e9);
                    s.put("window_s", secs);
                    s.put("offered_per_s", (ins - lastInserted) / secs);
                    s.put("completed_per_s", (done - lastDone) / secs);
                    s.put("inserted_total", ins);
                    s.put("completed_total", done);
                    Map<String, Object> lat = Percentiles.ms(w.samples());
                    lat.put("dropped", w.dropped());
                    s.put("claim_latency_ms", lat);
                    if (lat.get("p50") instanceof Double p50) {
                        p50s.add(p50);
                        worstP99 = Math.max(worstP99, (Double) lat.get("p99"));
                    }
                    s.put("backlog_runnable", runnable(stats, table));
                    s.put("wal_bytes", wal - lastWal);
                    s.put("wal_bytes_total", wal - wal0);
                    s.put("table", TableStats.of(stats, table));
                    s.put("cpu", cpu.since());
                    cpu = CpuSplit.now(stats);
                    long[] counters = counters(worker.engine.metrics());
                    Map<String, Object> eng = new LinkedHashMap<>();
                    String[] names = {"picks", "picked", "started_at_insert", "flushes", "flushed_outcomes", "gc_swept",
                        "flush_errors", "stale"};
                    for (int i = 0; i < names.length; i++) {
                        eng.put(names[i], counters[i] - lastCounters[i]);
                    }
                    s.put("engine", eng);
                    lastCounters = counters;
                    samples.add(s);
                    Map<String, Object> sampleLine = new LinkedHashMap<>();
                    sampleLine.put("scenario", "soak-sample");
                    if (line.get("tags") != null) {
                        sampleLine.put("tags", line.get("tags"));
                    }
                    sampleLine.put("schema", schema.name());
                    sampleLine.put("git", System.getProperty("bench.git", "unknown"));
                    sampleLine.put("autovacuum", avOn ? "on" : "off");
                    sampleLine.put("gc_retention", gc.retention().toString());
                    sampleLine.putAll(s);
                    emit.accept(sampleLine);
                    Bench.log(String.format(Locale.ROOT, "soak %d: offered %,.0f/s done %,.0f/s latency p50 %s p99 %s ms, backlog %s, "
                                    + "table %,d MB, dead %s", k, (ins - lastInserted) / secs, (done - lastDone) / secs,
                            lat.get("p50"), lat.get("p99"), s.get("backlog_runnable"),
                            (long) ((Map<?, ?>) s.get("table")).get("total_bytes") / (1 << 20),
                            ((Map<?, ?>) s.get("table")).get("n_dead_tup")));
                    lastInserted = ins;
                    lastDone = done;
                    lastWal = wal;
                    lastT = now;
                    if (!loading) {
                        break;
                    }
                }
                for (Thread th : threads) {
                    th.join(TimeUnit.SECONDS.toMillis(o.stallSeconds));
                }
                // the rest: the backlog left when the inserts stopped drains
                drainStart = System.nanoTime();
                long target = inserted.sum();
                long last = -1;
                long lastMove = System.nanoTime();
                while (progress.count() < target) {
                    long c = progress.count();
                    if (c != last) {
                        last = c;
                        lastMove = System.nanoTime();
                    } else if (System.nanoTime() - lastMove > TimeUnit.SECONDS.toNanos(o.stallSeconds)) {
                        break;
                    }
                    Thread.sleep(100);
                }
                drained = progress.count() >= target;
                long finish = System.nanoTime();
                results.put("samples", samples);
                Map<String, Object> totals = new LinkedHashMap<>();
                long ins = inserted.sum();
                long done = progress.count();
                long walTotal = TableStats.walLsn(stats) - wal0;
                double loadSeconds = (drainStart - start) / 1e9;
                totals.put("inserted", ins);
                totals.put("completed", done);
                totals.put("load_seconds", loadSeconds);
                totals.put("offered_per_s", ins / loadSeconds);
                totals.put("completed_per_s_while_loading", (double) lastDone / loadSeconds);
                totals.put("drain_seconds", (finish - drainStart) / 1e9);
                totals.put("drained", drained);
                totals.put("wal_bytes", walTotal);
                totals.put("wal_bytes_per_job", done == 0 ? null : (double) walTotal / done);
                totals.put("claim_latency_p50_ms_median_of_samples", median(p50s));
                totals.put("claim_latency_p99_ms_worst_sample", worstP99);
                totals.put("backlog_runnable_left", runnable(stats, table));
                totals.put("loader_error", loaderError.get() == null ? null : loaderError.get().toString());
                results.put("totals", totals);
                results.put("after", TableStats.of(stats, table));
                line.put("complete", drained && loaderError.get() == null);
                line.put("engine_metrics", Engines.metrics(worker.engine.metrics(), progress, (finish - start) / 1e9));
            }
        }
    }

    /** @return the engine's counters a sample reports the increase of, in its order */
    private static long[] counters(io.gendurable.impl.runtime.EngineMetrics m) {
        return new long[]{m.picks.sum(), m.picked.sum(), m.startedAtInsert.sum(), m.flushes.sum(), m.flushedOutcomes.sum(),
            m.gcSwept.sum(), m.flushErrors.sum(), m.stale.sum()};
    }

    /** @return the runnable rows, counted through the pick index (no sequential scan of a large table every minute) */
    private static long runnable(HikariDataSource ds, String table) {
        try (var c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (var s = c.createStatement()) {
                s.execute("SET LOCAL enable_seqscan = off");
                try (var rs = s.executeQuery("SELECT count(*) FROM " + table + " WHERE status = 'runnable' AND NOT key_blocked")) {
                    rs.next();
                    return rs.getLong(1);
                }
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        } catch (java.sql.SQLException e) {
            return -1;
        }
    }

    private static Double median(List<Double> v) {
        if (v.isEmpty()) {
            return null;
        }
        List<Double> s = new ArrayList<>(v);
        s.sort(Double::compare);
        return s.get((s.size() - 1) / 2);
    }

    /** @param sent when the insert call that carried the job began (System.nanoTime(), this JVM) */
    public record Stamp(long sent) {
    }

    /** A no-op job that records how long after its insert call began its step started. */
    @io.gendurable.DurableFsm(name = "bench-soak", maxAttempts = 3)
    public static final class SoakJob implements io.gendurable.Job<Stamp> {
        private final Recorder recorder;

        SoakJob(Recorder recorder) {
            this.recorder = recorder;
        }

        @Override
        public Object perform(Stamp s, io.gendurable.StepContext ctx) {
            recorder.add(System.nanoTime() - s.sent());
            return null;
        }
    }

    /** Every latency of the current window, exactly, in an array swapped at each sample. */
    static final class Recorder {
        private final int capacity;
        private final AtomicReference<Window> current;

        Recorder(int capacity) {
            this.capacity = capacity;
            this.current = new AtomicReference<>(new Window(new long[capacity], new AtomicInteger(), new LongAdder()));
        }

        void add(long nanos) {
            Window w = current.get();
            int i = w.next.getAndIncrement();
            if (i < w.values.length) {
                w.values[i] = nanos;
            } else {
                w.over.increment();
            }
        }

        /** @return the window so far; a fresh one records from now (a straggler's write may land in either) */
        Window swap() {
            Window w = current.getAndSet(new Window(new long[capacity], new AtomicInteger(), new LongAdder()));
            return w;
        }

        record Window(long[] values, AtomicInteger next, LongAdder over) {
            long[] samples() {
                int n = Math.min(next.get(), values.length);
                long[] out = java.util.Arrays.copyOf(values, n);
                for (int i = 0; i < n; i++) {
                    if (out[i] == 0) {
                        out[i] = Percentiles.MISSING;  // claimed slot not written yet
                    }
                }
                return out;
            }

            long dropped() {
                return over.sum();
            }
        }
    }
}
