package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The in-server bench: deploys the bench WAR ({@code gen-durable-bench/server-war}) into Open Liberty
 * and WildFly as {@code -Pbench-servers} provisioned them from the shipped configuration, and drives
 * it over HTTP. One JSON line per server ({@code "scenario":"liberty"} or {@code "wildfly"}), its
 * {@code results} holding, as the plain-Java bench's burn-downs do, the median run of each:
 * <ul>
 * <li>{@code jobs}: {@code --n} no-op jobs inserted on a paused queue (the WAR's {@code insertAll}),
 *     ANALYZE, then the queue resumed and timed to the last committed outcome;</li>
 * <li>{@code live}: the same jobs inserted over HTTP in batches of 1,000 while the engine runs, on a
 *     table emptied (TRUNCATE) before, timed from the first insert to the last outcome;</li>
 * <li>{@code blocking}: {@code --blocking-n} jobs whose step waits {@code --block-ms}, preloaded
 *     on their queue ({@code blocking}, concurrency 32 unless {@code --server-queues} says otherwise);</li>
 * <li>{@code fsm}: {@code --fsm-n} FSMs of {@code --k} requeued no-op steps, preloaded, in steps;</li>
 * <li>{@code jobs_parked}: the {@code jobs} burn-down while {@code --parked} HTTP requests wait in
 *     {@code GenDurable.await(id, 10 s)} (as getting-started's resource does): do requests parked in
 *     application code slow the engine?</li>
 * </ul>
 * plus {@code live_first}: the first live run after the deployment (a cold JVM on a table that started
 * empty: what a first deployment sees). Each run's CPU: the server JVM's ({@code /proc/<pid>/stat}),
 * PostgreSQL's (the bench database's backends and the background processes), this harness's and the rest.
 * Before the measured runs, {@code --warmup} jobs are burnt in rounds of {@code --n}, unmeasured.
 *
 * <pre>
 * BENCH_MAIN=io.gendurable.bench.ServerBench gen-durable-bench/bench.sh [jdbc-url] --servers=liberty,wildfly
 * </pre>
 */
public final class ServerBench {
    private ServerBench() {
    }

    public static void main(String[] args) throws Exception {
        Bench.quietLogs();
        Options o;
        try {
            o = Options.parse(args);
        } catch (picocli.CommandLine.ParameterException e) {
            System.err.println(e.getMessage() + "\n" + Options.usage());
            System.exit(2);
            return;
        }
        Path target = Path.of(o.serverDir.isBlank() ? System.getProperty("bench.server.dir", "gen-durable-bench/server-war/target")
                : o.serverDir);
        int failed = 0;
        try (BenchDb db = BenchDb.open(o.db, o.fsync, o.pgConfig)) {
            Bench bench = new Bench(o, db, System.out).withoutWarmup();
            for (String server : o.servers) {
                failed += bench.run(new Scenario(server, "the bench WAR in " + server, new InServer(server, target))) ? 0 : 1;
            }
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    /** One server's measurements (the line's body). */
    static final class InServer implements Scenario.Body {
        private final String kind;
        private final Path target;
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        private AppServer server;
        private String schema;
        private HikariDataSource admin;
        private Options o;

        InServer(String kind, Path target) {
            this.kind = kind;
            this.target = target;
        }

        @Override
        public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
            this.o = o;
            Map<String, Object> params = new LinkedHashMap<>();
            params.put("n", o.n);
            params.put("repeat", o.repeat);
            params.put("warmup", o.warmup);
            params.put("live_batch", 1000);
            params.put("live_warm", o.liveWarm);
            params.put("blocking_n", o.blockingN);
            params.put("block_ms", o.blockMs);
            params.put("fsm_n", o.fsmN);
            params.put("k", o.k);
            line.put("params", params);
            Path war = target.resolve("bench.war");
            if (!Files.isRegularFile(war)) {
                throw new IllegalStateException("no " + war + ": build it with "
                        + "mvn -B verify -pl gen-durable-bench/server-war -am -DskipTests -Pbench-servers");
            }
            schema = BenchDb.newSchema("srv_" + kind);
            server = AppServer.of(kind, target);
            Map<String, String> env = new LinkedHashMap<>();
            env.put("GENDURABLE_DB_URL", db.url());
            env.put("GENDURABLE_SCHEMA", schema);
            env.put("GENDURABLE_QUEUES", o.serverQueues);
            Map<String, Object> config = new LinkedHashMap<>();
            config.put("server", server.describe());
            config.put("queues", o.serverQueues);
            config.put("keys_set", List.of("gendurable.queues", "gendurable.schema"));
            config.put("server_jvm", o.serverJvm);
            config.put("warmup_jobs", o.warmup);
            line.put("config_override", config);
            try (HikariDataSource a = db.pool("bench-srv-admin", 2); AppServer s = server) {
                admin = a;
                long t0 = System.nanoTime();
                Bench.log(kind + ": starting with " + war + " (log " + s.log + ")");
                s.start(war, env, o.serverJvm);
                Map<String, Object> ready = awaitReady(o.serverStartSeconds);
                s.pid = ((Number) ready.get("pid")).longValue();
                ready.put("boot_s", (System.nanoTime() - t0) / 1e9);
                line.put("server", ready);
                Bench.log(kind + ": ready in " + String.format(Locale.ROOT, "%.1f s", (double) ready.get("boot_s")) + ": " + ready);
                measure(line);
            } finally {
                try (HikariDataSource drop = db.pool("bench-drop", 1)) {
                    if (!o.keepSchemas) {
                        BenchDb.exec(drop, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                    }
                } catch (RuntimeException e) {
                    Bench.log("could not drop schema " + schema + ": " + e);
                }
            }
        }

        private void measure(Map<String, Object> line) throws Exception {
            List<Map<String, Object>> first = List.of(live(true));
            if (o.warmup > 0) {
                int round = Math.max(1, Math.min(o.warmup, o.n));
                Bench.log(kind + ": warm-up: " + o.warmup + " no-op jobs in rounds of " + round);
                List<Object> rates = new ArrayList<>();
                for (int done = 0; done < o.warmup; done += round) {
                    rates.add(preloaded("warmup", "noop", "default", Math.min(round, o.warmup - done), 1).get("events_per_s"));
                }
                line.put("warmup", Map.of("jobs", o.warmup, "rounds_jobs_per_s", rates));
            }
            List<Map<String, Object>> jobs = new ArrayList<>();
            List<Map<String, Object>> live = new ArrayList<>();
            List<Map<String, Object>> blocking = new ArrayList<>();
            List<Map<String, Object>> fsm = new ArrayList<>();
            List<Map<String, Object>> parked = new ArrayList<>();
            for (int r = 0; r < o.repeat; r++) {
                jobs.add(preloaded("jobs", "noop", "default", o.n, 1));
                if (o.parked > 0) {
                    parked.add(parked());
                }
                live.add(live(false));
                if (o.blockingN > 0) {
                    blocking.add(preloaded("blocking", "blocking", "blocking", o.blockingN, 1));
                }
                if (o.fsmN > 0) {
                    fsm.add(preloaded("fsm", "fsm", "default", o.fsmN, o.k));
                }
            }
            Map<String, List<Map<String, Object>>> runs = new LinkedHashMap<>();
            runs.put("jobs", jobs);
            runs.put("live", live);
            runs.put("live_first", first);
            Map<String, Object> results = BurnDown.report(runs, "jobs", line);
            if (!blocking.isEmpty()) {
                Map<String, Object> b = BurnDown.median(blocking, "jobs");
                ((Map<String, Object>) line.get("engine_metrics")).put("blocking", b.remove("engine_metrics"));
                // what the queue's concurrency allows: every slot busy with one blocking step after another
                b.put("ideal_jobs_per_s", concurrency("blocking") * 1000.0 / o.blockMs);
                b.put("vs_ideal", (double) b.get("jobs_per_s") / (double) b.get("ideal_jobs_per_s"));
                results.put("blocking", b);
                line.put("complete", Boolean.TRUE.equals(line.get("complete")) && BurnDown.allComplete(blocking));
            }
            if (!fsm.isEmpty()) {
                Map<String, Object> f = BurnDown.median(fsm, "steps");
                ((Map<String, Object>) line.get("engine_metrics")).put("fsm", f.remove("engine_metrics"));
                results.put("fsm", f);
                line.put("complete", Boolean.TRUE.equals(line.get("complete")) && BurnDown.allComplete(fsm));
            }
            if (!parked.isEmpty()) {
                Map<String, Object> p = BurnDown.median(parked, "jobs");
                ((Map<String, Object>) line.get("engine_metrics")).put("jobs_parked", p.remove("engine_metrics"));
                p.put("parked_requests", o.parked);
                results.put("jobs_parked", p);
                results.put("parked_vs_preloaded", BurnDown.rate(results, "jobs_parked", "jobs")
                        / BurnDown.rate(results, "jobs", "jobs"));
                line.put("complete", Boolean.TRUE.equals(line.get("complete")) && BurnDown.allComplete(parked));
            }
            results.put("live_vs_preloaded", BurnDown.rate(results, "live", "jobs") / BurnDown.rate(results, "jobs", "jobs"));
            line.put("figures", figures(results));
        }

        /**
         * @return the line's headline figures under flat names of their own, which compare.sh reads
         * with grep: the median runs' rates and CPU µs per no-op job of the preloaded burn-down
         */
        private static Map<String, Object> figures(Map<String, Object> results) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("server_jobs_per_s", BurnDown.rate(results, "jobs", "jobs"));
            f.put("server_live_jobs_per_s", BurnDown.rate(results, "live", "jobs"));
            f.put("server_live_first_jobs_per_s", BurnDown.rate(results, "live_first", "jobs"));
            f.put("server_live_vs_preloaded", results.get("live_vs_preloaded"));
            Map<?, ?> cpu = (Map<?, ?>) ((Map<?, ?>) results.get("jobs")).get("cpu_us_each");
            f.put("server_jvm_us", cpu.get("jvm_us"));
            f.put("server_db_us", cpu.get("db_us"));
            if (results.get("blocking") instanceof Map<?, ?> b) {
                f.put("server_blocking_jobs_per_s", b.get("jobs_per_s"));
                f.put("server_blocking_vs_ideal", b.get("vs_ideal"));
            }
            if (results.get("fsm") instanceof Map<?, ?> m) {
                f.put("server_fsm_steps_per_s", m.get("steps_per_s"));
            }
            if (results.get("jobs_parked") instanceof Map<?, ?>) {
                f.put("server_parked_jobs_per_s", BurnDown.rate(results, "jobs_parked", "jobs"));
                f.put("server_parked_vs_preloaded", results.get("parked_vs_preloaded"));
            }
            return f;
        }

        /** @return the concurrency {@code --server-queues} gives {@code queue} (the engine's default 10 if absent) */
        private int concurrency(String queue) {
            for (String q : o.serverQueues.split(",")) {
                String[] kv = q.trim().split(":");
                if (kv.length == 2 && kv[0].equals(queue)) {
                    return Integer.parseInt(kv[1].trim());
                }
            }
            return 10;
        }

        /** A preloaded run: pause the queue, insert, ANALYZE, resume and time to the last of {@code count × perRow} outcomes. */
        private Map<String, Object> preloaded(String hint, String kind, String queue, int count, int perRow) throws Exception {
            reset();
            post("pause?queue=" + queue);
            long tInsert = System.nanoTime();
            post("insert?kind=" + kind + "&count=" + count + "&batch=1000&k=" + o.k + "&sleepMs=" + o.blockMs);
            double insertS = (System.nanoTime() - tInsert) / 1e9;
            BenchDb.exec(admin, "ANALYZE " + schema + ".gen_durable");
            Machine.awaitJitQuiet(3_000);  // this harness's own JIT, not the server's: keeps rest_cpu_s clean
            Map<String, Object> r = timed(hint, (long) count * perRow, queue, null);
            r.put("preinsert_rows_per_s", count / insertS);
            return r;
        }

        /**
         * The preloaded no-op burn-down with {@code --parked} requests waiting in {@code await} from
         * before the resume to after the last outcome (each waits 10 s; a run is ~1–3 s).
         */
        private Map<String, Object> parked() throws Exception {
            reset();
            post("pause?queue=default");
            post("insert?kind=noop&count=" + o.n + "&batch=1000");
            BenchDb.exec(admin, "ANALYZE " + schema + ".gen_durable");
            List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
            for (int i = 0; i < o.parked; i++) {
                waiting.add(http.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "park?seconds=10"))
                        .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (((Number) get("parked").get("parked")).intValue() < o.parked) {
                for (var w : waiting) {
                    if (w.isDone()) {
                        HttpResponse<String> a = w.join();
                        throw new IllegalStateException(kind + ": a request meant to park answered at once: "
                                + a.statusCode() + " " + a.body());
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(kind + ": " + o.parked + " requests did not all park within 30 s ("
                            + get("parked") + ")");
                }
                Thread.sleep(50);
            }
            Machine.awaitJitQuiet(3_000);
            Map<String, Object> r = timed("jobs_parked", o.n, "default", null);
            r.put("parked_at_end", ((Number) get("parked").get("parked")).intValue());
            for (var w : waiting) {
                HttpResponse<String> a = w.get(60, java.util.concurrent.TimeUnit.SECONDS);
                if (a.statusCode() != 200) {
                    throw new IllegalStateException(kind + ": a parked request answered " + a.statusCode() + ": " + a.body());
                }
            }
            return r;
        }

        /** A live run: inserts over HTTP in batches of 1,000 while the engine runs, on an emptied table. */
        private Map<String, Object> live(boolean firstAfterDeploy) throws Exception {
            if (!firstAfterDeploy) {
                reset();
            }
            for (int round = 0; round < o.liveWarm; round++) {  // as the plain-Java live scenario: statements planned on a small table
                post("arm?target=10");
                post("insert?kind=noop&count=10&batch=10");
                if (!await(10, o.stallSeconds)) {
                    throw new IllegalStateException(kind + " live: warm-up round " + round + " stalled");
                }
            }
            return timed(firstAfterDeploy ? "live_first" : "live", o.n, null, () -> {
                for (int from = 0; from < o.n; from += 1000) {
                    post("insert?kind=noop&count=" + Math.min(1000, o.n - from) + "&batch=1000");
                }
            });
        }

        interface Load {
            void run() throws Exception;
        }

        /** Arms the WAR's watch, resumes {@code queue} or runs {@code load}, and waits; CPU, engine counters, rows done. */
        private Map<String, Object> timed(String hint, long target, String queue, Load load) throws Exception {
            Map<String, Object> metricsBefore = get("metrics");
            Cpu before = Cpu.now(server.pid, admin);
            post("arm?target=" + target + (queue == null ? "" : "&resume=" + queue));
            if (load != null) {
                load.run();
            }
            boolean complete = await(target, o.stallSeconds);
            Cpu after = Cpu.now(server.pid, admin);
            Map<String, Object> status = get("status");
            Map<String, Object> metricsAfter = get("metrics");
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("events", target);
            r.put("seconds", status.get("seconds"));
            r.put("events_per_s", status.get("per_s"));
            r.put("steady_events_per_s", status.get("steady_per_s"));
            r.put("first_10pct_s", status.get("first_10pct_s"));
            Map<String, Object> split = after.since(before);
            r.put("cpu", split);
            r.put("cpu_us_each", CeilingScenario.perStep(split, target));
            r.put("complete", complete);
            r.put("engine_metrics", delta(metricsBefore, metricsAfter, (double) status.get("seconds")));
            long done = BenchDb.queryLong(admin, "SELECT count(*) FROM " + schema + ".gen_durable WHERE status = 'done'");
            r.put("rows_done", done);
            Bench.log(String.format(Locale.ROOT, "%s %s: %,.0f/s  %s  cpu %s", kind, hint, (double) r.get("events_per_s"),
                    complete ? "" : "INCOMPLETE", split));
            return r;
        }

        /** Empties the engine's tables (ANALYZE-free: the statistics say what TRUNCATE left, an empty table). */
        private void reset() {
            BenchDb.exec(admin, "TRUNCATE " + schema + ".gen_durable, " + schema + ".signals, " + schema + ".gen_durable_history");
        }

        /** @return whether the armed run reached its target; polls every 100 ms, gives up after {@code stall} s without progress */
        private boolean await(long target, int stall) throws Exception {
            long last = -1;
            long lastChange = System.nanoTime();
            while (true) {
                Map<String, Object> s = get("status");
                if (Boolean.TRUE.equals(s.get("done"))) {
                    return true;
                }
                long counted = ((Number) s.get("counted")).longValue();
                if (counted != last) {
                    last = counted;
                    lastChange = System.nanoTime();
                } else if (System.nanoTime() - lastChange > stall * 1_000_000_000L) {
                    Bench.log(kind + ": stalled at " + counted + " of " + target);
                    return false;
                }
                Thread.sleep(100);
            }
        }

        private static Map<String, Object> delta(Map<String, Object> before, Map<String, Object> after, double seconds) {
            Map<String, Object> d = new LinkedHashMap<>();
            after.forEach((k, v) -> d.put(k, ((Number) v).longValue() - ((Number) before.get(k)).longValue()));
            long picks = (long) d.get("picks");
            long flushes = (long) d.get("flushes");
            long steps = (long) d.remove("steps");
            long stepNanos = (long) d.remove("step_nanos");
            d.put("rows_per_pick", picks == 0 ? null : (double) (long) d.get("picked") / picks);
            d.put("outcomes_per_flush", flushes == 0 ? null : (double) (long) d.get("flushed_outcomes") / flushes);
            d.put("picks_per_s", seconds > 0 ? picks / seconds : null);
            d.put("flushes_per_s", seconds > 0 ? flushes / seconds : null);
            d.put("step_code_us_mean", steps == 0 ? null : stepNanos / 1e3 / steps);
            d.put("transactions_per_step", steps == 0 ? null : (double) (picks - (long) d.get("picks_in_flush") + flushes) / steps);
            return d;
        }

        private Map<String, Object> awaitReady(int seconds) throws Exception {
            long deadline = System.nanoTime() + seconds * 1_000_000_000L;
            Exception last = null;
            while (System.nanoTime() < deadline) {
                try {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.base() + "ready"))
                            .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200) {
                        return parse(r.body());
                    }
                    last = new IllegalStateException("HTTP " + r.statusCode());
                } catch (java.io.IOException e) {
                    last = e;
                }
                Thread.sleep(500);
            }
            throw new IllegalStateException(kind + ": the bench WAR did not answer within " + seconds + " s (" + last
                    + "); see " + server.log + " and the server's own log");
        }

        private Map<String, Object> get(String path) throws Exception {
            return call(HttpRequest.newBuilder(URI.create(server.base() + path)).GET());
        }

        private Map<String, Object> post(String path) throws Exception {
            return call(HttpRequest.newBuilder(URI.create(server.base() + path)).POST(HttpRequest.BodyPublishers.noBody()));
        }

        private Map<String, Object> call(HttpRequest.Builder b) throws Exception {
            HttpRequest req = b.timeout(Duration.ofSeconds(o.stallSeconds)).build();
            HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException(kind + ": " + req.method() + " " + req.uri() + " answered " + r.statusCode()
                        + ": " + r.body());
            }
            return parse(r.body());
        }
    }

    /** @return a JSON object as maps, lists, doubles, longs, strings, booleans and nulls */
    static Map<String, Object> parse(String json) {
        try (var reader = jakarta.json.Json.createReader(new StringReader(json))) {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) value(reader.readObject());
            return m;
        }
    }

    private static Object value(JsonValue v) {
        return switch (v.getValueType()) {
            case OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                ((JsonObject) v).forEach((k, x) -> m.put(k, value(x)));
                yield m;
            }
            case ARRAY -> ((JsonArray) v).stream().map(ServerBench::value).toList();
            case NUMBER -> ((JsonNumber) v).isIntegral() ? (Object) ((JsonNumber) v).longValue() : (Object) ((JsonNumber) v).doubleValue();
            case STRING -> ((JsonString) v).getString();
            case TRUE -> Boolean.TRUE;
            case FALSE -> Boolean.FALSE;
            case NULL -> null;
        };
    }

    /**
     * A CPU reading of the machine, the server JVM ({@code /proc/<pid>}: all its threads, the JIT's and
     * the collector's apart), the bench database's PostgreSQL processes and this harness's JVM.
     */
    record Cpu(CpuSplit.Cpu machine, long serverTicks, CpuSplit.JvmTasks serverTasks, CpuSplit.DbCpu db) {
        private static final double TICKS_PER_SECOND = 100.0;  // USER_HZ on Linux

        static Cpu now(long pid, javax.sql.DataSource ds) {
            return new Cpu(CpuSplit.Cpu.now(), CpuSplit.DbCpu.processTicks(pid, "java"),
                    CpuSplit.JvmTasks.of(Path.of("/proc/" + pid)), CpuSplit.DbCpu.of(ds));
        }

        /**
         * @return {@code wall_s}, {@code machine_busy_pct}, {@code jvm_cpu_s} (the server JVM's, with its
         * {@code jvm_jit_cpu_s} and {@code jvm_gc_cpu_s}), {@code db_cpu_s}, {@code harness_cpu_s} (this
         * JVM's) and {@code rest_cpu_s} (everything else on the machine)
         */
        Map<String, Object> since(Cpu before) {
            Map<String, Object> harness = machine.since(before.machine);  // wall, busy %, this JVM, the others
            Map<String, Object> m = new LinkedHashMap<>();
            double wall = (double) harness.get("wall_s");
            m.put("wall_s", wall);
            Object busy = harness.get("machine_busy_pct");
            m.put("machine_busy_pct", busy);
            double server = serverTicks >= 0 && before.serverTicks >= 0 ? (serverTicks - before.serverTicks) / TICKS_PER_SECOND : 0;
            m.put("jvm_cpu_s", server);
            if (serverTasks != null) {
                m.putAll(serverTasks.since(before.serverTasks));
            }
            double dbs = db != null && before.db != null ? db.since(before.db) : 0;
            m.put("db_cpu_s", dbs);
            double self = (double) harness.getOrDefault("jvm_cpu_s", 0.0);
            m.put("harness_cpu_s", self);
            if (busy instanceof Double pct) {
                double busySeconds = pct / 100 * Runtime.getRuntime().availableProcessors() * wall;
                m.put("rest_cpu_s", Math.max(0, busySeconds - server - dbs - self));
            }
            return m;
        }
    }
}
