package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.impl.core.EngineConfig;
import io.gendurable.impl.core.EngineEvents;
import io.gendurable.impl.core.EngineMetrics;
import io.gendurable.impl.core.LimitsConfig;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The benchmark harness: runs named scenarios against one PostgreSQL and prints ONE JSON object
 * per scenario on standard output (progress goes to standard error). See docs/performance.md.
 *
 * <pre>
 * gen-durable-bench/bench.sh all                       # embedded PostgreSQL, fsync on
 * gen-durable-bench/bench.sh jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres jobs fsm
 * </pre>
 */
public final class Bench {
    static final List<String> ALL = List.of("jobs", "fsm", "insert", "latency", "backlog", "fanout", "limited",
            "ceiling");
    private static final String INSTANCES = "gen_durable";
    /** Held: JUL keeps loggers weakly, and a collected one forgets its level. */
    private static final Logger HIBERNATE_LOG = Logger.getLogger("org.hibernate");

    private final Options o;
    private final BenchDb db;
    private final PrintStream out;
    private Map<String, Object> dbInfo;
    private boolean warmedUp;

    Bench(Options o, BenchDb db, PrintStream out) {
        this.o = o;
        this.db = db;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        quietLogs();
        Options o;
        try {
            o = Options.parse(args);
        } catch (picocli.CommandLine.ParameterException e) {
            System.err.println(e.getMessage() + "\n" + Options.usage());
            System.exit(2);
            return;
        }
        List<String> scenarios = new ArrayList<>();
        for (String s : o.scenarios.isEmpty() ? List.of("help") : o.scenarios) {
            if (s.equals("all")) {
                scenarios.addAll(ALL);
            } else if (ALL.contains(s) || s.equals("serve")) {
                scenarios.add(s);
            } else {
                System.err.print((s.equals("help") ? "" : "unknown scenario " + s + "\n") + Options.usage());
                System.exit(s.equals("help") ? 0 : 2);
                return;
            }
        }
        try (BenchDb db = BenchDb.open(o.db, o.fsync, o.pgConfig)) {
            if (scenarios.contains("serve")) {
                serve(db);
                return;
            }
            Bench bench = new Bench(o, db, System.out);
            int failed = 0;
            for (String s : scenarios) {
                failed += bench.run(s) ? 0 : 1;
            }
            System.exit(failed == 0 ? 0 : 1);
        }
    }

    /** Keeps the engine's, Hibernate's and Flyway's INFO lines off the terminal: WARNING and up only. */
    static void quietLogs() {
        Logger root = Logger.getLogger("");
        root.setLevel(Level.WARNING);
        for (var h : root.getHandlers()) {
            h.setLevel(Level.WARNING);
        }
        // HHH90000025 (an explicit PostgreSQL dialect) once per engine: noise for the bench
        HIBERNATE_LOG.setLevel(Level.SEVERE);
    }

    /** Starts nothing but the database, prints its URL as JSON, and waits until stdin closes. */
    private static void serve(BenchDb db) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("serve", db.url());
        m.put("embedded", db.embedded());
        System.out.println(Json.line(m));
        System.out.flush();
        while (System.in.read() >= 0) {
            // until EOF
        }
    }

    /** Runs one scenario and prints its JSON line. @return whether it completed */
    boolean run(String scenario) {
        long t0 = System.nanoTime();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("scenario", scenario);
        json.put("engine", "gen-durable " + Machine.version("gen-durable"));
        json.put("git", System.getProperty("bench.git", "unknown"));
        json.put("started_at", Instant.now().toString());
        json.put("load_avg_before", Machine.loadAverage());
        boolean ok = true;
        try (HikariDataSource admin = db.pool("bench-admin", 2)) {
            if (dbInfo == null) {
                dbInfo = db.describe(admin);
            }
            if (!warmedUp && o.warmup > 0) {
                warmedUp = true;
                json.put("warmup", warmUp());
            }
            log("scenario " + scenario + " ...");
            switch (scenario) {
                case "jobs" -> jobs(json);
                case "fsm" -> fsm(json);
                case "insert" -> insert(json);
                case "latency" -> latency(json);
                case "backlog" -> backlog(json);
                case "fanout" -> fanout(json);
                case "limited" -> limited(json);
                case "ceiling" -> ceiling(json);
                default -> throw new IllegalArgumentException(scenario);
            }
            json.put("config", config());
            json.put("db", dbInfo);
        } catch (Exception e) {
            ok = false;
            json.put("error", e.toString());
            e.printStackTrace();
        }
        Map<String, Object> jvm = Machine.jvm();
        jvm.put("heap_used_mb", Machine.heapUsedMb());  // at the scenario's end, no GC forced
        json.put("jvm", jvm);
        json.put("versions", Map.of("postgresql_jdbc", Machine.version("postgresql-jdbc"),
                "hikari", Machine.version("hikari"), "hibernate", Machine.version("hibernate")));
        json.put("elapsed_s", (System.nanoTime() - t0) / 1e9);
        if (json.containsKey("error") || Boolean.FALSE.equals(json.get("complete"))) {
            ok = false;
        }
        out.println(Json.line(json));
        out.flush();
        return ok;
    }

    /**
     * Burns {@code --warmup} no-op jobs in rounds of at most {@code --n}, each on a fresh schema and
     * engine like a measured run, so that the measured runs see a JIT-compiled engine (C2 keeps
     * compiling for tens of thousands of jobs; cold figures are far lower, see docs/performance.md).
     *
     * @return the rounds' rates
     */
    private Map<String, Object> warmUp() throws Exception {
        int total = o.warmup;
        int round = Math.max(1, Math.min(total, o.n));
        log("warm-up: " + total + " no-op jobs in rounds of " + round + ", each in a throwaway schema");
        List<Object> rates = new ArrayList<>();
        for (int done = 0; done < total; done += round) {
            Map<String, Object> r = burnDown("warmup", Math.min(round, total - done), 1,
                    i -> NewInstance.of(BenchFsms.NoopJob.class, new BenchFsms.Args(i)), k -> k.equals("done"),
                    LimitsConfig.none(), new BenchFsms.NoopJob());
            rates.add(r.get("events_per_s"));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobs", total);
        m.put("rounds_jobs_per_s", rates);
        return m;
    }

    // ------------------------------------------------------------------ scenarios

    private void jobs(Map<String, Object> json) throws Exception {
        int n = o.n;
        int repeat = o.repeat;
        json.put("params", Map.of("n", n, "repeat", repeat));
        List<Map<String, Object>> runs = new ArrayList<>();
        for (int r = 0; r < repeat; r++) {
            runs.add(burnDown("jobs", n, 1, i -> NewInstance.of(BenchFsms.NoopJob.class, new BenchFsms.Args(i)),
                    k -> k.equals("done"), LimitsConfig.none(), new BenchFsms.NoopJob()));
        }
        Map<String, Object> r = median(runs, "jobs");
        json.put("engine_metrics", r.remove("engine_metrics"));
        json.put("results", r);
        json.put("complete", allComplete(runs));
    }

    private void fsm(Map<String, Object> json) throws Exception {
        int n = o.fsmN;
        int k = o.k;
        int repeat = o.repeat;
        json.put("params", Map.of("instances", n, "k", k, "steps", (long) n * k, "repeat", repeat));
        // Interleaved so that neither variant gets all the JIT warmth, nor always runs second.
        List<Map<String, Object>> plainRuns = new ArrayList<>();
        List<Map<String, Object>> inlineRuns = new ArrayList<>();
        for (int r = 0; r < 2 * repeat; r++) {
            // plain, inline, inline, plain, plain, inline…: each variant goes first as often as second
            boolean inline = (r % 2 == 1) == (r / 2 % 2 == 0);
            if (inline) {
                inlineRuns.add(burnDown("fsminline", n, k,
                        i -> NewInstance.of(BenchFsms.InlineHopFsm.class, new BenchFsms.Hop(k)),
                        kind -> true, LimitsConfig.none(), new BenchFsms.InlineHopFsm()));
            } else {
                plainRuns.add(burnDown("fsm", n, k, i -> NewInstance.of(BenchFsms.HopFsm.class, new BenchFsms.Hop(k)),
                        kind -> true, LimitsConfig.none(), new BenchFsms.HopFsm()));
            }
        }
        Map<String, Object> plain = median(plainRuns, "steps");
        Map<String, Object> inline = median(inlineRuns, "steps");
        Map<String, Object> results = new LinkedHashMap<>();
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("inline_false", plain.remove("engine_metrics"));
        metrics.put("inline_true", inline.remove("engine_metrics"));
        results.put("inline_false", plain);
        results.put("inline_true", inline);
        results.put("inline_speedup", (double) inline.get("steps_per_s") / (double) plain.get("steps_per_s"));
        json.put("results", results);
        json.put("complete", allComplete(plainRuns) && allComplete(inlineRuns));
        json.put("engine_metrics", metrics);
    }

    private void insert(Map<String, Object> json) throws Exception {
        int threads = o.insertThreads;
        int rows = o.insertRows;
        int single = o.singleRows;
        json.put("params", Map.of("threads", threads, "batch", 1000, "batch_rows", rows, "single_rows", single));
        String schema = BenchDb.newSchema("insert");
        Map<String, Object> results = new LinkedHashMap<>();
        try (HikariDataSource ds = db.pool("bench-insert", o.pool);
             Node client = new Node("insert", ds, config(schema, Map.of()), o.timerThreads, null,
                     new BenchFsms.NoopJob()).start()) {
            results.put("insert_all_1_thread", insertAllRun(client, ds, rows, 1, 1000));
            results.put("insert_all_" + threads + "_threads", insertAllRun(client, ds, rows, threads, 1000));
            results.put("single_1_thread", singleRun(client, ds, Math.min(single, 2000), 1));
            results.put("single_" + threads + "_threads", singleRun(client, ds, single, threads));
            long total = BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema + "." + INSTANCES);
            results.put("rows_in_table", total);
            json.put("engine_metrics", metrics(client.engine.metrics(), null, 0));
        } finally {
            dropSchema(schema);
        }
        json.put("results", results);
    }

    private Map<String, Object> insertAllRun(Node client, javax.sql.DataSource ds, int rows, int threads, int batch) throws Exception {
        Machine.Split cpu = Machine.Split.now(ds);
        long t0 = System.nanoTime();
        parallel(threads, t -> {
            for (int from = t * batch; from < rows; from += threads * batch) {
                List<NewInstance> list = new ArrayList<>(batch);
                for (int i = from; i < Math.min(rows, from + batch); i++) {
                    list.add(NewInstance.of(BenchFsms.NoopJob.class, new BenchFsms.Args(i)));
                }
                client.engine.insertAll(list);
            }
        });
        double s = (System.nanoTime() - t0) / 1e9;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rows", rows);
        m.put("threads", threads);
        m.put("batch", batch);
        m.put("rows_per_s", rows / s);
        m.put("cpu", cpu.since());
        return m;
    }

    private Map<String, Object> singleRun(Node client, javax.sql.DataSource ds, int rows, int threads) throws Exception {
        long[] lat = new long[rows];
        AtomicLong next = new AtomicLong();
        Machine.Split cpu = Machine.Split.now(ds);
        long t0 = System.nanoTime();
        parallel(threads, t -> {
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
        m.put("insert_ms", percentiles(lat));
        m.put("cpu", cpu.since());
        return m;
    }

    private void latency(Map<String, Object> json) throws Exception {
        int rate = o.rate;
        int seconds = o.seconds;
        int probes = rate * seconds;
        int waiters = o.waiters;
        int signalRate = o.signalRate;
        json.put("params", Map.of("rate_per_s", rate, "seconds", seconds, "probes", probes, "waiters", waiters,
                "signal_rate_per_s", signalRate));
        String schema = BenchDb.newSchema("latency");
        BenchFsms.ProbeFsm fsm = new BenchFsms.ProbeFsm(probes, waiters);
        Map<String, Object> results = new LinkedHashMap<>();
        try (HikariDataSource ds = db.pool("bench-latency", o.pool);
             Node node = new Node("latency", ds, config(schema, Map.of("default", o.concurrency)),
                     o.timerThreads, null, fsm).start()) {
            Thread.sleep(1000);  // idle: let the first polls back off
            // 1. inserts at a fixed rate; each probe's step stamps when it started
            long[] insertCall = new long[probes];
            long period = TimeUnit.SECONDS.toNanos(1) / rate;
            long start = System.nanoTime();
            for (int i = 0; i < probes; i++) {
                parkUntil(start + i * period);
                long s = System.nanoTime();
                fsm.sent.set(i, s);
                node.engine.insert(BenchFsms.ProbeFsm.class, new BenchFsms.Probe(i, false));
                insertCall[i] = System.nanoTime() - s;
            }
            double sendSeconds = (System.nanoTime() - start) / 1e9;
            waitFor(() -> allSet(fsm.started, probes), o.stallSeconds);
            long[] startLat = new long[probes];
            int missing = 0;
            for (int i = 0; i < probes; i++) {
                startLat[i] = fsm.started.get(i) == 0 ? Long.MAX_VALUE : fsm.started.get(i) - fsm.sent.get(i);
                missing += fsm.started.get(i) == 0 ? 1 : 0;
            }
            Map<String, Object> ins = new LinkedHashMap<>();
            ins.put("probes", probes);
            ins.put("achieved_rate_per_s", probes / sendSeconds);
            ins.put("insert_to_start_ms", percentiles(startLat));
            ins.put("insert_call_ms", percentiles(insertCall));
            ins.put("missing", missing);
            results.put("insert_to_start", ins);

            // 2. park waiters on signal "go", then signal them at a fixed rate
            List<NewInstance> batch = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                batch.add(NewInstance.of(BenchFsms.ProbeFsm.class, new BenchFsms.Probe(i, true)));
            }
            List<Inserted> ids = node.engine.insertAll(batch);
            waitFor(() -> BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema + "." + INSTANCES
                    + " WHERE status = 'awaiting_signal'") >= waiters, o.stallSeconds);
            Thread.sleep(1000);  // idle again
            long sPeriod = TimeUnit.SECONDS.toNanos(1) / signalRate;
            long[] signalCall = new long[waiters];
            int undelivered = 0;
            start = System.nanoTime();
            for (int i = 0; i < waiters; i++) {
                parkUntil(start + i * sPeriod);
                long s = System.nanoTime();
                fsm.signalled.set(i, s);
                SignalResult sr = node.engine.signal(SignalTarget.id(ids.get(i).id()), "go", null);
                signalCall[i] = System.nanoTime() - s;
                undelivered += sr == SignalResult.DELIVERED ? 0 : 1;
            }
            waitFor(() -> allSet(fsm.woken, waiters), o.stallSeconds);
            long[] wakeLat = new long[waiters];
            int notWoken = 0;
            for (int i = 0; i < waiters; i++) {
                wakeLat[i] = fsm.woken.get(i) == 0 ? Long.MAX_VALUE : fsm.woken.get(i) - fsm.signalled.get(i);
                notWoken += fsm.woken.get(i) == 0 ? 1 : 0;
            }
            Map<String, Object> sig = new LinkedHashMap<>();
            sig.put("waiters", waiters);
            sig.put("signal_to_woken_step_ms", percentiles(wakeLat));
            sig.put("signal_call_ms", percentiles(signalCall));
            sig.put("undelivered", undelivered);
            sig.put("missing", notWoken);
            results.put("signal_to_wake", sig);
            json.put("complete", missing == 0 && notWoken == 0);
            json.put("engine_metrics", metrics(node.engine.metrics(), null, 0));
        } finally {
            dropSchema(schema);
        }
        json.put("results", results);
    }

    private void backlog(Map<String, Object> json) throws Exception {
        int rows = o.backlog;
        int burn = Math.min(rows, o.backlogBurn);
        int batch = o.backlogBatch;
        json.put("params", Map.of("rows", rows, "burn", burn, "insert_batch", batch));
        String schema = BenchDb.newSchema("backlog");
        Map<String, Object> results = new LinkedHashMap<>();
        try (HikariDataSource ds = db.pool("bench-backlog", o.pool)) {
            try (Node loader = new Node("loader", ds, config(schema, Map.of()), 2, null, new BenchFsms.NoopJob()).start()) {
                Machine.Split cpu = Machine.Split.now(ds);
                long t0 = System.nanoTime();
                int loaders = 2;
                parallel(loaders, t -> {
                    for (int from = t * batch; from < rows; from += loaders * batch) {
                        List<NewInstance> list = new ArrayList<>(batch);
                        for (int i = from; i < Math.min(rows, from + batch); i++) {
                            list.add(NewInstance.of(BenchFsms.NoopJob.class, new BenchFsms.Args(i)));
                        }
                        loader.engine.insertAll(list);
                    }
                });
                double s = (System.nanoTime() - t0) / 1e9;
                Map<String, Object> load = new LinkedHashMap<>();
                load.put("rows", rows);
                load.put("seconds", s);
                load.put("rows_per_s", rows / s);
                load.put("cpu", cpu.since());
                results.put("load", load);
            }
            BenchDb.exec(ds, "ANALYZE " + schema + "." + INSTANCES);
            double baseline = Machine.heapUsedAfterGcMb();
            Progress progress = new Progress(k -> k.equals("done"));
            progress.arm(burn);
            try (Node worker = new Node("worker", ds, config(schema, Map.of("default", o.concurrency))
                    .withMigrateAtStart(false), o.timerThreads, progress, new BenchFsms.NoopJob())) {
                Machine.Split cpu = Machine.Split.now(ds);
                long t0 = System.nanoTime();
                worker.start();
                boolean complete = progress.await(o.stallSeconds);
                Map<String, Object> r = rates(progress, t0, burn, "jobs");
                r.put("cpu", cpu.since());
                r.put("heap_used_mb", Machine.heapUsedMb());
                r.put("heap_used_after_gc_mb", Machine.heapUsedAfterGcMb());
                r.put("heap_before_worker_after_gc_mb", baseline);
                r.put("complete", complete);
                results.put("burn", r);
                json.put("complete", complete);
                json.put("engine_metrics", metrics(worker.engine.metrics(), progress, (double) r.get("seconds")));
            }
            results.put("rows_left", BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema + "." + INSTANCES
                    + " WHERE status = 'runnable'"));
        } finally {
            dropSchema(schema);
        }
        json.put("results", results);
    }

    private void fanout(Map<String, Object> json) throws Exception {
        int children = o.fanout;
        json.put("params", Map.of("children", children));
        String schema = BenchDb.newSchema("fanout");
        BenchFsms.ParentFsm parent = new BenchFsms.ParentFsm();
        AtomicLong childrenCommitted = new AtomicLong();
        Progress childDone = new Progress(k -> k.equals("done")) {
            @Override
            public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos,
                                     String error, boolean stale) {
                if (fsm.equals("bench-parent")) {
                    if (outcome.equals("schedule_children")) {
                        childrenCommitted.set(System.nanoTime());
                    }
                    return;
                }
                super.stepFinished(id, fsm, step, queue, outcome, nanos, error, stale);
            }
        };
        childDone.arm(children);
        Map<String, Object> results = new LinkedHashMap<>();
        try (HikariDataSource ds = db.pool("bench-fanout", o.pool);
             Node node = new Node("fanout", ds, config(schema, Map.of("default", o.concurrency)),
                     o.timerThreads, childDone, parent, new BenchFsms.NoopJob()).start()) {
            Thread.sleep(500);
            Machine.Split cpu = Machine.Split.now(ds);
            long t0 = System.nanoTime();
            node.engine.insert(BenchFsms.ParentFsm.class, new BenchFsms.Fan(children));
            boolean childrenOk = childDone.await(o.stallSeconds);
            boolean woke = waitFor(() -> parent.wokenAt != 0, o.stallSeconds);
            results.put("parent_first_step_ms", ms(parent.fannedOutAt - t0));
            results.put("children_committed_ms", childrenCommitted.get() == 0 ? null : ms(childrenCommitted.get() - t0));
            results.put("last_child_done_ms", childDone.tEnd() == 0 ? null : ms(childDone.tEnd() - t0));
            results.put("parent_woken_ms", woke ? ms(parent.wokenAt - t0) : null);
            results.put("join_ms", woke && childDone.tEnd() != 0 ? ms(parent.wokenAt - childDone.tEnd()) : null);
            results.put("children_per_s", childDone.tEnd() == 0 || childrenCommitted.get() == 0 ? null
                    : children * 1e9 / (childDone.tEnd() - childrenCommitted.get()));
            results.put("children_seen_by_parent", parent.childrenSeen);
            results.put("cpu", cpu.since());
            results.put("heap_used_mb", Machine.heapUsedMb());
            json.put("complete", childrenOk && woke && parent.childrenSeen == children);
            json.put("engine_metrics", metrics(node.engine.metrics(), childDone, (System.nanoTime() - t0) / 1e9));
        } finally {
            dropSchema(schema);
        }
        json.put("results", results);
    }

    private void limited(Map<String, Object> json) throws Exception {
        int n = o.n;
        int gateLimit = o.gateLimit;
        int keys = o.gateKeys;
        int rate = o.rateLimit;
        json.put("params", Map.of("n", n, "gate_limit", gateLimit, "gate_keys", keys, "rate_limit_per_s", rate,
                "repeat", o.repeat));
        LimitsConfig.Gate gate = new LimitsConfig.Gate("g", gateLimit, 1);
        LimitsConfig.RateLimit rl = new LimitsConfig.RateLimit("r", rate, Duration.ofSeconds(1), Math.max(1, rate / 10.0), 1);
        LimitsConfig limits = new LimitsConfig(Map.of("r", rl), Map.of("g", gate));
        int repeat = o.repeat;
        List<Map<String, Object>> baseRuns = new ArrayList<>();
        List<Map<String, Object>> gatedRuns = new ArrayList<>();
        List<Map<String, Object>> ratedRuns = new ArrayList<>();
        // The same engine configuration (limits configured) for all three; only the rows differ.
        for (int r = 0; r < repeat; r++) {
            baseRuns.add(burnDown("unlimited", n, 1, i -> NewInstance.of(BenchFsms.NoopJob.class,
                    new BenchFsms.Args(i)), k -> k.equals("done"), limits, new BenchFsms.NoopJob()));
            gatedRuns.add(burnDown("gated", n, 1, i -> NewInstance.of(BenchFsms.NoopJob.class,
                    new BenchFsms.Args(i), InsertOptions.builder().concurrencyKey("g:" + (i % keys)).build()),
                    k -> k.equals("done"), limits, new BenchFsms.NoopJob()));
            ratedRuns.add(burnDown("rated", n, 1, i -> NewInstance.of(BenchFsms.NoopJob.class,
                    new BenchFsms.Args(i), InsertOptions.builder().rateLimit("r").build()),
                    k -> k.equals("done"), limits, new BenchFsms.NoopJob()));
        }
        Map<String, Object> base = median(baseRuns, "jobs");
        Map<String, Object> gated = median(gatedRuns, "jobs");
        Map<String, Object> rated = median(ratedRuns, "jobs");
        Map<String, Object> results = new LinkedHashMap<>();
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("unlimited", base.remove("engine_metrics"));
        metrics.put("gate", gated.remove("engine_metrics"));
        metrics.put("rate_limit", rated.remove("engine_metrics"));
        results.put("unlimited", base);
        results.put("gate", gated);
        results.put("rate_limit", rated);
        double b = (double) base.get("jobs_per_s");
        results.put("gate_vs_unlimited", (double) gated.get("jobs_per_s") / b);
        results.put("rate_limit_vs_unlimited", (double) rated.get("jobs_per_s") / b);
        json.put("results", results);
        json.put("complete", allComplete(baseRuns) && allComplete(gatedRuns) && allComplete(ratedRuns));
        json.put("engine_metrics", metrics);
        json.put("limits", Map.of("gate", gate.toString(), "rate_limit", rl.toString()));
    }

    /**
     * The database's ceiling for the engine's shape, no engine involved: a bare JDBC loop on the
     * engine's own table and indexes that claims 100 rows ({@code SKIP LOCKED}), commits, then
     * commits their next state ({@code done}) in one {@code UPDATE … FROM unnest}.
     */
    private void ceiling(Map<String, Object> json) throws Exception {
        int n = o.n;
        int batch = 100;
        json.put("params", Map.of("n", n, "batch", batch));
        Map<String, Object> results = new LinkedHashMap<>();
        for (int threads : new int[]{1, 4}) {
            String schema = BenchDb.newSchema("ceiling");
            try (HikariDataSource ds = db.pool("bench-ceiling", Math.max(4, threads + 1))) {
                try (Node loader = new Node("loader", ds, config(schema, Map.of()), 2, null, new BenchFsms.NoopJob()).start()) {
                    for (int from = 0; from < n; from += 1000) {
                        List<NewInstance> list = new ArrayList<>(1000);
                        for (int i = from; i < Math.min(n, from + 1000); i++) {
                            list.add(NewInstance.of(BenchFsms.NoopJob.class, new BenchFsms.Args(i)));
                        }
                        loader.engine.insertAll(list);
                    }
                }
                BenchDb.exec(ds, "ANALYZE " + schema + "." + INSTANCES);
                String t = schema + "." + INSTANCES;
                String claimSql = "UPDATE " + t + " g SET status = 'executing', locked_by = ?, "
                        + "lease_expires_at = now() + interval '1 minute', updated_at = now() "
                        + "FROM (SELECT id FROM " + t + " WHERE queue = 'default' AND status = 'runnable' "
                        + "AND eligible_at <= now() ORDER BY priority, eligible_at LIMIT ? "
                        + "FOR NO KEY UPDATE SKIP LOCKED) c WHERE g.id = c.id RETURNING g.id, g.state";
                String doneSql = "UPDATE " + t + " g SET status = 'done', locked_by = NULL, lease_expires_at = NULL, "
                        + "result = NULL, updated_at = now() FROM unnest(?::bigint[]) AS u(id) "
                        + "WHERE g.id = u.id AND g.locked_by = ? AND g.status = 'executing'";
                AtomicLong steps = new AtomicLong();
                Machine.Split cpu = Machine.Split.now(ds);
                long t0 = System.nanoTime();
                parallel(threads, th -> {
                    String worker = "ceiling-" + th;
                    try (var c = ds.getConnection(); var claim = c.prepareStatement(claimSql);
                         var done = c.prepareStatement(doneSql)) {
                        c.setAutoCommit(false);
                        while (true) {
                            claim.setString(1, worker);
                            claim.setInt(2, batch);
                            List<Long> ids = new ArrayList<>(batch);
                            try (var rs = claim.executeQuery()) {
                                while (rs.next()) {
                                    ids.add(rs.getLong(1));
                                    rs.getString(2);
                                }
                            }
                            c.commit();
                            if (ids.isEmpty()) {
                                return;
                            }
                            done.setArray(1, c.createArrayOf("bigint", ids.toArray()));
                            done.setString(2, worker);
                            steps.addAndGet(done.executeUpdate());
                            c.commit();
                        }
                    }
                });
                double sec = (System.nanoTime() - t0) / 1e9;
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("threads", threads);
                r.put("steps", steps.get());
                r.put("seconds", sec);
                r.put("steps_per_s", steps.get() / sec);
                r.put("cpu", cpu.since());
                results.put("threads_" + threads, r);
                json.put("complete", steps.get() == n && !Boolean.FALSE.equals(json.get("complete")));
            } finally {
                dropSchema(schema);
            }
        }
        json.put("results", results);
    }

    // ------------------------------------------------------------------ the burn-down

    /**
     * Pre-inserts {@code n} instances through an engine with no queues, then starts a worker
     * engine and times it from {@code start()} until {@code n x eventsPerInstance} counted outcomes
     * are committed.
     */
    Map<String, Object> burnDown(String hint, int n, int eventsPerInstance, IntFunction<NewInstance> row,
                                 java.util.function.Predicate<String> counts, LimitsConfig limits, Fsm<?>... fsms)
            throws Exception {
        String schema = BenchDb.newSchema(hint);
        Map<String, Object> r = new LinkedHashMap<>();
        try (HikariDataSource ds = db.pool("bench-" + hint, o.pool)) {
            try (Node loader = new Node("loader", ds, config(schema, Map.of()).withLimits(limits), 2, null, fsms).start()) {
                long t0 = System.nanoTime();
                for (int from = 0; from < n; from += 1000) {
                    List<NewInstance> list = new ArrayList<>(1000);
                    for (int i = from; i < Math.min(n, from + 1000); i++) {
                        list.add(row.apply(i));
                    }
                    loader.engine.insertAll(list);
                }
                r.put("preinsert_rows_per_s", n * 1e9 / (System.nanoTime() - t0));
            }
            BenchDb.exec(ds, "ANALYZE " + schema + "." + INSTANCES);
            long target = (long) n * eventsPerInstance;
            Progress progress = new Progress(counts);
            progress.arm(target);
            try (Node worker = new Node("worker", ds, config(schema, Map.of("default", o.concurrency))
                    .withLimits(limits).withMigrateAtStart(false), o.timerThreads, progress, fsms)) {
                Machine.Split cpu = Machine.Split.now(ds);
                Machine.Threads threads = Machine.Threads.now();
                long t0 = System.nanoTime();
                worker.start();
                boolean complete = progress.await(o.stallSeconds);
                r.putAll(rates(progress, t0, target, "events"));
                r.put("cpu", cpu.since());
                r.put("jvm_threads_cpu_s", Machine.Threads.now().since(threads));
                r.put("heap_used_mb", Machine.heapUsedMb());
                r.put("outcomes", progress.outcomes());
                r.put("complete", complete);
                r.put("engine_metrics", metrics(worker.engine.metrics(), progress, (double) r.get("seconds")));
            }
            long done = BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema + "." + INSTANCES + " WHERE status = 'done'");
            r.put("rows_done", done);
            if (done != n) {
                r.put("complete", false);
            }
        } finally {
            dropSchema(schema);
        }
        if (!Boolean.TRUE.equals(r.get("complete"))) {
            log(hint + ": INCOMPLETE " + r);
        } else {
            log(String.format(java.util.Locale.ROOT, "%s: %,.0f/s  cpu %s  jvm threads %s", hint,
                    (double) r.get("events_per_s"), r.get("cpu"), r.get("jvm_threads_cpu_s")));
        }
        return r;
    }

    private static Map<String, Object> rates(Progress p, long t0, long target, String unit) {
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
     * @param runs burn-downs of one kind (renamed here from {@code events} to {@code unit})
     * @return the run with the median rate, plus every run's rate under {@code runs_<unit>_per_s}
     */
    private static Map<String, Object> median(List<Map<String, Object>> runs, String unit) {
        List<Map<String, Object>> sorted = new ArrayList<>();
        for (Map<String, Object> r : runs) {
            sorted.add(renameRates(new LinkedHashMap<>(r), unit));
        }
        List<Object> all = sorted.stream().map(r -> r.get(unit + "_per_s")).toList();
        sorted.sort(java.util.Comparator.comparingDouble(r -> (double) r.get(unit + "_per_s")));
        Map<String, Object> m = new LinkedHashMap<>(sorted.get((sorted.size() - 1) / 2));
        m.put("runs_" + unit + "_per_s", all);
        return m;
    }

    private static boolean allComplete(List<Map<String, Object>> runs) {
        return runs.stream().allMatch(r -> Boolean.TRUE.equals(r.get("complete")));
    }

    /** Renames the generic {@code events} figures of a burn-down to {@code jobs} or {@code steps}. */
    private static Map<String, Object> renameRates(Map<String, Object> r, String unit) {
        Map<String, Object> m = new LinkedHashMap<>();
        r.forEach((k, v) -> m.put(k.replace("events", unit), v));
        r.clear();
        r.putAll(m);
        return r;
    }

    // ------------------------------------------------------------------ configuration and reporting

    EngineConfig config(String schema, Map<String, Integer> queues) {
        return EngineConfig.defaults().withNodeId("bench-" + ProcessHandle.current().pid()).withSchema(schema)
                .withQueues(queues)
                .withPrefetch(o.prefetch)
                .withMinDemand(Math.min(o.minDemand, o.concurrency + o.prefetch))
                .withPoll(Duration.ofMillis(o.pollMs), Duration.ofMillis(o.maxPollMs))
                .withFlushers(List.of(new EngineConfig.FlusherConfig(List.of("*"), o.flushBatch,
                        Duration.ofMillis(o.flushDelayMs), o.flushParallelism)));
    }

    private Map<String, Object> config() {
        EngineConfig c = config("bench", Map.of("default", o.concurrency));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queues", c.queues());
        m.put("prefetch", c.prefetch());
        m.put("min_demand", c.minDemand());
        m.put("poll_ms", c.pollInterval().toMillis());
        m.put("max_poll_ms", c.maxPollInterval().toMillis());
        m.put("flusher_max_batch", c.flushers().get(0).maxBatch());
        m.put("flusher_max_delay_ms", c.flushers().get(0).maxDelay().toMillis());
        m.put("lease_ttl_s", c.leaseTtl().toSeconds());
        m.put("heartbeat_s", c.heartbeatInterval().toSeconds());
        m.put("poke", c.poke().name().toLowerCase());
        m.put("hikari_pool", o.pool);
        m.put("timer_threads", o.timerThreads);
        m.put("step_executor", "cached thread pool");
        m.put("warmup_jobs", o.warmup);
        return m;
    }

    static Map<String, Object> metrics(EngineMetrics m, Progress p, double seconds) {
        Map<String, Object> r = new LinkedHashMap<>();
        long picks = m.picks.sum();
        long picked = m.picked.sum();
        long flushes = m.flushes.sum();
        long outcomes = m.flushedOutcomes.sum();
        r.put("picks", picks);
        r.put("picked", picked);
        r.put("rows_per_pick", picks == 0 ? null : (double) picked / picks);
        r.put("flushes", flushes);
        r.put("flushed_outcomes", outcomes);
        r.put("outcomes_per_flush", flushes == 0 ? null : (double) outcomes / flushes);
        if (seconds > 0) {
            r.put("picks_per_s", picks / seconds);
            r.put("flushes_per_s", flushes / seconds);
        }
        if (p != null && flushes > 0) {
            r.put("flush_ms_mean", p.flushNanos() / 1e6 / flushes);
            r.put("max_outcomes_per_flush", p.maxFlushOutcomes());
        }
        long steps = m.steps.values().stream().mapToLong(java.util.concurrent.atomic.LongAdder::sum).sum();
        r.put("step_code_us_mean", steps == 0 ? null : m.stepNanos.sum() / 1e3 / steps);
        r.put("stale", m.stale.sum());
        r.put("flush_errors", m.flushErrors.sum());
        r.put("loop_errors", m.loopErrors.sum());
        r.put("contended", m.contended.sum());
        r.put("gate_throttled", m.gateThrottled.sum());
        r.put("rate_throttled", m.rateThrottled.sum());
        return r;
    }

    // ------------------------------------------------------------------ helpers

    private void dropSchema(String schema) {
        if (o.keepSchemas) {
            return;
        }
        try (HikariDataSource admin = db.pool("bench-drop", 1)) {
            BenchDb.exec(admin, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } catch (RuntimeException e) {
            log("could not drop schema " + schema + ": " + e);
        }
    }

    interface Body {
        void run(int thread) throws Exception;
    }

    static void parallel(int threads, Body body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                fs.add(pool.submit(() -> {
                    body.run(thread);
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void parkUntil(long deadline) {
        for (long d; (d = deadline - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(d);
        }
    }

    private static boolean allSet(java.util.concurrent.atomic.AtomicLongArray a, int n) {
        for (int i = 0; i < n; i++) {
            if (a.get(i) == 0) {
                return false;
            }
        }
        return true;
    }

    /** Polls every 20 ms until true, or until {@code seconds} pass. */
    static boolean waitFor(java.util.function.BooleanSupplier c, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** @return p50, p95, p99 and max of nanosecond samples, in ms (Long.MAX_VALUE marks a missing sample) */
    static Map<String, Object> percentiles(long[] nanos) {
        long[] s = Arrays.stream(nanos).filter(v -> v != Long.MAX_VALUE).sorted().toArray();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", s.length);
        if (s.length == 0) {
            return m;
        }
        m.put("p50", ms(s[index(s.length, 0.50)]));
        m.put("p95", ms(s[index(s.length, 0.95)]));
        m.put("p99", ms(s[index(s.length, 0.99)]));
        m.put("max", ms(s[s.length - 1]));
        m.put("mean", Arrays.stream(s).average().orElse(0) / 1e6);
        return m;
    }

    private static int index(int n, double q) {
        return Math.max(0, Math.min(n - 1, (int) Math.ceil(q * n) - 1));
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    static void log(String s) {
        System.err.println("[bench " + java.time.LocalTime.now().withNano(0) + "] " + s);
    }
}
