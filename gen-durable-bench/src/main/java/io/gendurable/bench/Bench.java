package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.impl.config.LimitsConfig;

import java.io.PrintStream;
import java.time.Instant;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The benchmark harness: runs named {@link Scenario}s against one PostgreSQL and prints ONE JSON
 * object per scenario on standard output (progress goes to standard error). See docs/performance.md.
 *
 * <pre>
 * gen-durable-bench/bench.sh all                       # embedded PostgreSQL, fsync on
 * gen-durable-bench/bench.sh jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres jobs fsm
 * </pre>
 */
public final class Bench {
    /** Held: JUL keeps loggers weakly, and a collected one forgets its level. */
    private static final Logger HIBERNATE_LOG = Logger.getLogger("org.hibernate");
    /**
     * A scenario that measures several things at once (scaleout: one per node count) puts a list
     * of maps here: one line is printed per map, the common fields with the map's entries.
     */
    static final String SPLIT_LINES = "split_lines";
    /**
     * A long scenario (soak) finds here a {@code Consumer<Map<String, Object>>} that prints a line of
     * its own at once (a sample), beside the scenario's line printed at its end.
     */
    static final String EMIT = "emit";

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

    /** @return this bench, without the plain-Java warm-up before its first scenario (ServerBench warms the server up) */
    Bench withoutWarmup() {
        warmedUp = true;
        return this;
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
        List<Scenario> scenarios = new ArrayList<>();
        boolean serve = false;
        for (String s : o.scenarios.isEmpty() ? List.of("help") : o.scenarios) {
            if (s.equals("all")) {
                scenarios.addAll(Scenario.ALL);
            } else if (s.equals("serve")) {
                serve = true;
            } else if (Scenario.named(s).isPresent()) {
                scenarios.add(Scenario.named(s).get());
            } else {
                System.err.print((s.equals("help") ? "" : "unknown scenario " + s + "\n") + Options.usage());
                System.exit(s.equals("help") ? 0 : 2);
                return;
            }
        }
        try (BenchDb db = BenchDb.open(o.db, o.fsync, o.pgConfig)) {
            db.session(o.sessionDb);
            if (serve) {
                serve(db);
                return;
            }
            Bench bench = new Bench(o, db, System.out);
            int failed = 0;
            for (Scenario s : scenarios) {
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
    boolean run(Scenario scenario) {
        long t0 = System.nanoTime();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("scenario", scenario.name());
        json.put("engine", "gen-durable " + Machine.version("gen-durable"));
        json.put("git", System.getProperty("bench.git", "unknown"));
        json.put("started_at", Instant.now().toString());
        json.put("load_avg_before", Machine.loadAverage());
        if (!o.tags.isBlank()) {
            Map<String, Object> tags = new LinkedHashMap<>();
            for (String kv : o.tags.split(",")) {
                int eq = kv.indexOf('=');
                tags.put(eq > 0 ? kv.substring(0, eq).trim() : kv.trim(), eq > 0 ? kv.substring(eq + 1).trim() : "");
            }
            json.put("tags", tags);
        }
        boolean ok = true;
        try (HikariDataSource admin = db.pool("bench-admin", 2)) {
            if (dbInfo == null) {
                dbInfo = db.describe(admin);
            }
            if (!warmedUp && o.warmup > 0) {
                warmedUp = true;
                json.put("warmup", warmUp());
            }
            if (Boolean.TRUE.equals(o.requireAutovacuum) && !TableStats.autovacuumOn(admin)) {
                throw new IllegalStateException("--require-autovacuum=on: the server's autovacuum is off");
            }
            log("scenario " + scenario.name() + " ...");
            json.put(EMIT, (java.util.function.Consumer<Map<String, Object>>) m -> {
                synchronized (out) {
                    out.println(Json.line(m));
                    out.flush();
                }
            });
            try {
                scenario.body().run(o, db, json);
            } finally {
                json.remove(EMIT);
            }
            Object override = json.remove("config_override");
            json.put("config", override != null ? override : Engines.describe(o));
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
        Object split = json.remove(SPLIT_LINES);
        List<Map<String, Object>> lines = new ArrayList<>();
        if (split instanceof List<?> parts && !parts.isEmpty()) {
            for (Object part : parts) {
                Map<String, Object> one = new LinkedHashMap<>(json);
                ((Map<?, ?>) part).forEach((k, v) -> one.put(String.valueOf(k), v));
                lines.add(one);
            }
        } else {
            lines.add(json);
        }
        for (Map<String, Object> one : lines) {
            if (one.containsKey("error") || Boolean.FALSE.equals(one.get("complete"))) {
                ok = false;
            }
            out.println(Json.line(one));
        }
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
        BurnDown burnDown = new BurnDown(o, db);
        List<Object> rates = new ArrayList<>();
        for (int done = 0; done < total; done += round) {
            Map<String, Object> r = burnDown.run(BurnDown.Work.noopJobs("warmup", Math.min(round, total - done)),
                    LimitsConfig.none());
            rates.add(r.get("events_per_s"));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobs", total);
        m.put("rounds_jobs_per_s", rates);
        return m;
    }

    static void log(String s) {
        System.err.println("[bench " + LocalTime.now().withNano(0) + "] " + s);
    }
}
