package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps the harness working without benchmarking during the build: every scenario with tiny
 * parameters and the db-scheduler baseline with N = 200, on the tests' database
 * ({@code GENDURABLE_TEST_DB_URL}, else an embedded server with fsync off: a smoke test measures
 * nothing). Each line must parse as JSON and carry the fields docs/performance.md and compare.sh read.
 */
class BenchSmokeTest {
    /** Small enough for the build: the whole set runs in well under a minute. */
    private static final String[] SMALL = {"--n=200", "--repeat=1", "--warmup=0", "--concurrency=16", "--prefetch=16",
        "--pool=4", "--stall-seconds=30", "--fsm-n=40", "--k=3", "--insert-rows=200", "--single-rows=50",
        "--insert-threads=2", "--rate=50", "--seconds=1", "--waiters=20", "--signal-rate=50", "--backlog=500",
        "--backlog-burn=200", "--backlog-batch=100", "--fanout=50", "--search-rows=3000", "--search-samples=2",
        "--ceiling-n=300", "--ceiling-runs=1", "--scaleout-nodes=1,2", "--scaleout-concurrency=4",
        "--scaleout-warmup=100", "--scaleout-heap=256m", "--hot-backlog=300", "--far-backlog=500", "--live-warm=3"};

    /** Every line's fields. */
    private static final List<String> COMMON = List.of("/scenario", "/engine", "/git", "/started_at",
            "/load_avg_before", "/params", "/results", "/config/queues", "/config/hikari_pool",
            "/db/synchronous_commit", "/db/server_version", "/jvm/heap_used_mb", "/versions/postgresql_jdbc",
            "/elapsed_s");

    /** Each scenario's figures, as docs/performance.md names them. */
    private static final Map<String, List<String>> FIGURES_FIRST = Map.of(
            "jobs", List.of("/results/jobs_per_s", "/results/steady_jobs_per_s", "/results/first_10pct_s",
                    "/results/preinsert_rows_per_s", "/results/runs_jobs_per_s", "/results/cpu/jvm_cpu_s",
                    "/results/cpu_us_each/jvm_us",
                    "/results/jvm_threads_cpu_s", "/results/outcomes/done", "/engine_metrics/picks",
                    "/engine_metrics/outcomes_per_flush"),
            "fsm", List.of("/results/inline_false/steps_per_s", "/results/inline_true/steps_per_s",
                    "/results/inline_true/runs_steps_per_s", "/results/inline_speedup",
                    "/engine_metrics/inline_false/flushes", "/engine_metrics/inline_true/flushes"),
            "insert", List.of("/results/insert_all_1_thread/rows_per_s", "/results/insert_all_2_threads/cpu",
                    "/results/single_1_thread/insert_ms/p50", "/results/single_2_threads/insert_ms/p99",
                    "/results/rows_in_table", "/engine_metrics/picks"),
            "latency", List.of("/results/insert_to_start/insert_to_start_ms/p50",
                    "/results/insert_to_start/insert_call_ms/max", "/results/insert_to_start/achieved_rate_per_s",
                    "/results/signal_to_wake/signal_to_woken_step_ms/p99", "/results/signal_to_wake/undelivered"),
            "backlog", List.of("/results/load/rows_per_s", "/results/burn/jobs_per_s",
                    "/results/burn/heap_used_after_gc_mb", "/results/burn/heap_before_worker_after_gc_mb",
                    "/results/rows_left"),
            "fanout", List.of("/results/parent_first_step_ms", "/results/children_committed_ms",
                    "/results/last_child_done_ms", "/results/parent_woken_ms", "/results/join_ms",
                    "/results/children_per_s", "/results/children_seen_by_parent"),
            "limited", List.of("/results/unlimited/jobs_per_s", "/results/gate/jobs_per_s",
                    "/results/rate_limit/jobs_per_s", "/results/gate_vs_unlimited", "/results/rate_limit_vs_unlimited",
                    "/engine_metrics/gate/gate_throttled", "/limits/gate"),
            "ceiling", List.of("/results/threads_1/steps_per_s", "/results/threads_4/steps_per_s",
                    "/results/threads_8/runs_steps_per_s", "/results/threads_4/cpu/wall_s",
                    "/results/threads_1/cpu_us_per_step/jvm_us", "/results/best_steps_per_s", "/results/best_threads"),
            "jobs-cdi", List.of("/results/jobs_per_s", "/results/runs_jobs_per_s", "/results/boot_s",
                    "/results/cpu_us_each/jvm_us", "/results/rows_done", "/engine_metrics/outcomes_per_flush",
                    "/config/config"),
            "search", List.of("/results/load_s", "/results/first_page_ms/fsm_rare_old/p50",
                    "/results/first_page_ms/error_text/p99", "/results/first_page_ms/parent/walk_5_pages_ms",
                    "/results/summary_ms", "/results/inspect_parent_ms"));

    /** The scale-out and pathology scenarios' figures (scaleout: on each of its lines, one per node count). */
    private static final Map<String, List<String>> FIGURES_MORE = Map.of(
            "live", List.of("/results/live/jobs_per_s", "/results/preloaded/jobs_per_s", "/results/live/rows_before",
                    "/results/live/cpu_us_each/jvm_us", "/live_vs_preloaded", "/engine_metrics/live/picks"),
            "scaleout", List.of("/params/nodes", "/params/concurrency_per_node", "/results/jobs_per_s",
                    "/results/ratio_to_1_node", "/results/cpu_per_job_ratio_to_1_node", "/results/runs_jobs_per_s",
                    "/results/cpu/node_jvms_cpu_s", "/results/cpu/db_cpu_s", "/results/cpu_us_per_job/total",
                    "/results/load_avg_1m/mean", "/results/per_node/0/counters/empty_picks",
                    "/results/per_node/0/counters/contended", "/results/per_node/0/counters/flush_deferred",
                    "/engine_metrics/0/counters/jobs", "/results/rows_done"),
            "hotkey", List.of("/results/alone/ordinary/jobs_per_s", "/results/beside_hot_key/ordinary/jobs_per_s",
                    "/results/ordinary_ratio", "/results/beside_hot_key/beside_per_s",
                    "/results/beside_hot_key/claim_plan/execution_ms",
                    "/results/beside_hot_key/claim_plan/pick_index_rows_read", "/engine_metrics/beside_hot_key/picks"),
            "farfuture", List.of("/results/alone/claim_plan/buffers", "/results/beside_far_future/claim_plan/buffers",
                    "/results/beside_far_future/claim_plan/pick_index_buffers", "/results/claim_ms_ratio",
                    "/results/claim_buffers_ratio", "/results/ordinary_ratio",
                    "/results/beside_far_future/claim_plan_before/rows"));

    /** Each scenario's figures, as docs/performance.md names them. */
    private static final Map<String, List<String>> FIGURES = new java.util.HashMap<>(FIGURES_FIRST);

    static {
        FIGURES.putAll(FIGURES_MORE);
    }

    static BenchDb db;

    @BeforeAll
    static void up() {
        Bench.quietLogs();
        db = BenchDb.open(System.getenv("GENDURABLE_TEST_DB_URL"), false);
    }

    @AfterAll
    static void down() {
        db.close();
    }

    static List<String> scenarios() {
        return Scenario.ALL.stream().map(Scenario::name).toList();
    }

    @ParameterizedTest
    @MethodSource("scenarios")
    void everyScenarioPrintsOneCompleteJsonLineWithItsFigures(String name) {
        String out = run(name);
        // scaleout prints one line per node count (--scaleout-nodes=1,2 here), every other scenario one
        assertEquals(name.equals("scaleout") ? 2 : 1, out.lines().count(), out);
        for (String l : out.lines().toList()) {
            assertLine(name, l);
        }
    }

    private static void assertLine(String name, String out) {
        JsonObject line = jakarta.json.Json.createReader(new StringReader(out)).readObject();
        List<String> absent = new ArrayList<>();
        for (String pointer : concat(COMMON, FIGURES.get(name))) {
            if (!jakarta.json.Json.createPointer(pointer).containsValue(line)) {
                absent.add(pointer);
            }
        }
        assertTrue(absent.isEmpty(), "absent " + absent + " in " + out);
        assertEquals(name, line.getString("scenario"));
        assertTrue(!line.containsKey("complete") || line.get("complete") == JsonValue.TRUE, out);
        assertTrue(!line.containsKey("error"), out);
    }

    @Test
    void everyScenarioHasItsFiguresListedHere() {
        assertEquals(FIGURES.keySet(), Map.copyOf(Scenario.ALL.stream()
                .collect(java.util.stream.Collectors.toMap(Scenario::name, s -> s))).keySet());
    }

    @Test
    void jobsLineCarriesWhatCompareShReads() {
        String out = run("jobs");
        assertTrue(out.startsWith("{\"scenario\":\"jobs\""), out);
        assertTrue(out.contains("\"jobs\":200,"), out);
        assertTrue(out.contains("\"rows_done\":200"), out);
        // compare.sh: grep -o '"jobs_per_s":[0-9.]*' | head -1
        Matcher m = Pattern.compile("\"jobs_per_s\":([0-9.]*)").matcher(out);
        assertTrue(m.find(), out);
        JsonObject line = jakarta.json.Json.createReader(new StringReader(out)).readObject();
        assertEquals(line.getJsonObject("results").getJsonNumber("jobs_per_s").doubleValue(),
                Double.parseDouble(m.group(1)), 1e-9);
    }

    @Test
    void dbSchedulerBaselineBurnsDownItsTasks() throws Exception {
        try (HikariDataSource ds = db.pool("smoke-db-scheduler", 8)) {
            Map<String, Object> r = DbSchedulerJobs.burnDown(ds, 200, 4, 0.5, 3.0, 30);
            assertEquals(Boolean.TRUE, r.get("complete"), r.toString());
            assertEquals(200L, r.get("jobs"), r.toString());
        }
    }

    @Test
    void optionsKeepTheirSpellings() {
        Options o = Options.parse(new String[]{"jdbc:postgresql://h/db?user=u", "--n=1_000", "--k", "7",
            "--fsync=off", "--keep-schemas", "true", "jobs", "fsm"});
        assertEquals("jdbc:postgresql://h/db?user=u", o.db);
        assertEquals(1000, o.n);
        assertEquals(7, o.k);
        assertEquals(false, o.fsync);
        assertEquals(true, o.keepSchemas);
        assertEquals(List.of("jobs", "fsm"), o.scenarios);
        assertEquals(List.of("help"), Options.parse(new String[]{"--help"}).scenarios);
        assertThrows(picocli.CommandLine.ParameterException.class, () -> Options.parse(new String[]{"--nope=1"}));
        assertTrue(Options.usage().contains("--flush-delay-ms") && Options.usage().contains("ceiling"));
    }

    @Test
    void scaleAndPathologyOptionsParseAndRefuseNonsense() {
        Options o = Options.parse(new String[]{"--scaleout-nodes=1,3", "--scaleout-concurrency=12", "--hot-backlog=5_000",
            "--far-backlog", "7", "scaleout", "hotkey", "farfuture"});
        assertEquals(List.of(1, 3), o.scaleoutNodes);
        assertEquals(12, o.scaleoutConcurrency);
        assertEquals(5000, o.hotBacklog);
        assertEquals(7, o.farBacklog);
        assertEquals(List.of(1, 2, 4), Options.parse(new String[0]).scaleoutNodes);
        assertEquals(40, Options.parse(new String[0]).scaleoutConcurrency);
        picocli.CommandLine.ParameterException e = assertThrows(picocli.CommandLine.ParameterException.class,
                () -> Options.parse(new String[]{"--scaleout-nodes=1,0"}));
        assertTrue(e.getMessage().contains("--scaleout-nodes") && e.getMessage().contains("[1, 0]"), e.getMessage());
        assertThrows(picocli.CommandLine.ParameterException.class,
                () -> Options.parse(new String[]{"--scaleout-nodes=8", "--scaleout-concurrency=4"}));
        assertTrue(Options.usage().contains("scaleout") && Options.usage().contains("--far-backlog"));
    }

    @Test
    void scaleoutNodeCountersAreTheMeasuredRunsOnly() {
        JsonObject end = jakarta.json.Json.createReader(new StringReader(
                "{\"jobs\":150,\"picks\":10,\"picked\":150,\"rows_per_pick\":15.0,\"empty_picks\":3}")).readObject();
        JsonObject mark = jakarta.json.Json.createReader(new StringReader(
                "{\"jobs\":100,\"picks\":8,\"picked\":100,\"rows_per_pick\":12.5,\"empty_picks\":1}")).readObject();
        Map<String, Object> m = ScaleoutScenario.Child.since(end, mark);
        assertEquals(50L, m.get("jobs"));
        assertEquals(2L, m.get("picks"));
        assertEquals(2L, m.get("empty_picks"));
        assertEquals(25.0, m.get("rows_per_pick"));
        assertEquals(150L, ScaleoutScenario.Child.since(end, null).get("jobs"));
    }

    @Test
    void jsonIsEscapedAndRounded() {
        assertEquals("{\"a\":\"x\\\"y\\n\"}", Json.line(Map.of("a", "x\"y\n")));
        assertEquals("[1,2.500,null,12345.7,null,3]",
                Json.line(java.util.Arrays.asList(1, 2.5, null, 12345.67, Double.NaN, 3.0)));
    }

    @Test
    void aSessionDbServesTheEnginesAndTheLineNamesIt() {
        String url = db.url() + (db.url().contains("?") ? "&" : "?") + "ApplicationName=bench-smoke-session";
        assertEquals(url, Options.parse(new String[]{"--session-db=" + url}).sessionDb);
        try (BenchDb withSession = BenchDb.open(db.url(), false)) {
            withSession.session(url);
            JsonObject line = jakarta.json.Json.createReader(new StringReader(run("jobs", withSession))).readObject();
            assertEquals(url, line.getJsonObject("db").getString("session_url"));
            assertTrue(line.getJsonObject("results").getInt("rows_done") == 200, line.toString());
        }
        assertTrue(Node.session == null, "the session pool is released with its database");
    }

    @Test
    void soakPrintsASampleLineEachWindowThenItsTotalsAndIsNotInAll() {
        assertTrue(Scenario.ALL.stream().noneMatch(s -> s.name().equals("soak")), "soak runs an hour: never in all");
        List<String> args = new ArrayList<>(List.of(SMALL));
        args.addAll(List.of("--soak-minutes=0.05", "--soak-sample-s=1", "--soak-rate=200", "--soak-batch=20",
            "--require-autovacuum=off"));
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        boolean ok = new Bench(Options.parse(args.toArray(String[]::new)), db, new PrintStream(buf, true, StandardCharsets.UTF_8))
                .run(Scenario.named("soak").orElseThrow());
        String out = buf.toString(StandardCharsets.UTF_8).strip();
        assertTrue(ok, out);
        List<JsonObject> lines = out.lines().map(l -> jakarta.json.Json.createReader(new StringReader(l)).readObject()).toList();
        List<JsonObject> samples = lines.stream().filter(l -> l.getString("scenario").equals("soak-sample")).toList();
        assertTrue(samples.size() >= 2, "3 s sampled every second: " + out);
        for (JsonObject s : samples) {
            for (String p : List.of("/offered_per_s", "/completed_per_s", "/claim_latency_ms/n", "/backlog_runnable",
                    "/wal_bytes", "/table/total_bytes", "/table/index_bytes/gen_durable_pick", "/table/n_dead_tup",
                    "/table/autovacuum_count", "/autovacuum", "/gc_retention", "/engine/started_at_insert", "/engine/gc_swept")) {
                assertTrue(jakarta.json.Json.createPointer(p).containsValue(s), p + " absent in " + s);
            }
        }
        JsonObject last = lines.get(lines.size() - 1);
        assertLineHas(last, List.of("/results/totals/inserted", "/results/totals/drained", "/results/before/total_bytes",
            "/results/after/index_bytes/gen_durable_ops_status", "/results/autovacuum/autovacuum", "/params/gc/retention",
            "/autovacuum", "/results/samples/0/claim_latency_ms"));
        assertEquals("soak", last.getString("scenario"));
        assertEquals(JsonValue.TRUE, last.get("complete"), out);
        JsonObject totals = last.getJsonObject("results").getJsonObject("totals");
        assertEquals(totals.getJsonNumber("inserted").longValue(), totals.getJsonNumber("completed").longValue(), out);
        assertTrue(totals.getJsonNumber("inserted").longValue() > 0, out);
        assertEquals("PT24H", last.getJsonObject("params").getJsonObject("gc").getString("retention"), "the engine's default");
    }

    @Test
    void theBacklogBurnsBesideCompletedRowsPreloaded() {
        List<String> args = new ArrayList<>(List.of(SMALL));
        args.add("--backlog-done=3000");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        boolean ok = new Bench(Options.parse(args.toArray(String[]::new)), db, new PrintStream(buf, true, StandardCharsets.UTF_8))
                .run(Scenario.named("backlog").orElseThrow());
        String out = buf.toString(StandardCharsets.UTF_8).strip();
        assertTrue(ok, out);
        JsonObject line = jakarta.json.Json.createReader(new StringReader(out)).readObject();
        assertLineHas(line, List.of("/results/done_rows/rows", "/results/burn/jobs_per_s", "/results/claim_plan/execution_ms",
            "/results/table_before_burn/index_bytes/gen_durable_ops_status"));
        // the preloaded rows are done and stay: 3,000 of them, besides the rows the worker ran (the burn, and
        // whatever it ran more before it stopped)
        JsonObject r = line.getJsonObject("results");
        assertEquals(3000 + (500 - r.getJsonNumber("rows_left").longValue()), r.getJsonNumber("done_rows_after").longValue(), out);
        assertEquals(3000, r.getJsonObject("done_rows").getInt("rows"), out);
    }

    private static void assertLineHas(JsonObject line, List<String> pointers) {
        for (String p : pointers) {
            assertTrue(jakarta.json.Json.createPointer(p).containsValue(line), p + " absent in " + line);
        }
    }

    private static String run(String name) {
        return run(name, db);
    }

    private static String run(String name, BenchDb db) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        boolean ok = new Bench(Options.parse(SMALL), db, new PrintStream(buf, true, StandardCharsets.UTF_8))
                .run(Scenario.named(name).orElseThrow());
        String out = buf.toString(StandardCharsets.UTF_8).strip();
        assertTrue(ok, out);
        return out;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
