package io.gendurable.chaos;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One chaos run: starts the suite's PostgreSQL, migrates, launches {@link #WORKERS} worker JVMs,
 * feeds the workload while the {@link Saboteur} injects faults for the chaos window, lets the
 * system settle (every instance terminal, the gate refilled), stops the workers and checks the
 * {@link Invariants}. {@code main} runs it from the command line; the JUnit suite runs the short one.
 */
public final class ChaosRun {
    /** Worker JVMs. */
    public static final int WORKERS = 3;

    /**
     * @param window       how long faults are injected while work is fed
     * @param plan         when which fault happens
     * @param settleMillis how long the system may take to finish everything afterwards
     * @param seed         the random seed
     * @param dir          logs, the data directory and the summary
     */
    public record Settings(Duration window, Saboteur.Plan plan, long settleMillis, long seed, File dir) {
        /** @param minutes 0 for the short CI run, else the window in minutes @param dir the output directory */
        public static Settings of(double minutes, File dir) {
            long seed = Long.getLong("chaos.seed", System.nanoTime());
            if (minutes <= 0) {
                // kills every ~14 s, the clean restart at 32 s, the crash at 50 s, a pause from 3 s on
                // about every 18 s (each ~13 s: past the 10 s lease), every other one an undeploy
                Duration w = Duration.ofSeconds(70);
                return new Settings(w, new Saboteur.Plan(w.toMillis(), 14_000, 32_000, List.of(50_000L), 3_000, 5_000),
                        150_000, seed, dir);
            }
            // the same faults at a proportionate rate: kills every ~30 s, the restart at 40 %, a crash
            // every 2 minutes from minute 1, a pause every ~45 s
            Duration w = Duration.ofMillis((long) (minutes * 60_000));
            List<Long> crashes = new ArrayList<>();
            for (long at = 60_000; at < w.toMillis() - 30_000; at += 120_000) {
                crashes.add(at);
            }
            return new Settings(w, new Saboteur.Plan(w.toMillis(), 30_000, w.toMillis() * 2 / 5, crashes, 20_000, 30_000),
                    600_000, seed, dir);
        }
    }

    /** What a run found. @param report the invariants @param summary the printable summary */
    public record Result(Invariants.Report report, String summary) {
    }

    private ChaosRun() {
    }

    /** Runs the chaos suite; args: [minutes] (default 0: the short run), [output directory]. */
    public static void main(String[] args) throws Exception {
        double minutes = args.length > 0 ? Double.parseDouble(args[0]) : 0;
        File dir = new File(args.length > 1 ? args[1] : "target/chaos");
        Result r = run(Settings.of(minutes, dir));
        System.out.println(r.summary());
        System.exit(r.report().passed() ? 0 : 1);
    }

    /** Runs once. */
    public static Result run(Settings s) throws Exception {
        Instant began = Instant.now();
        s.dir().mkdirs();
        File logs = new File(s.dir(), "run-" + began.toEpochMilli());
        logs.mkdirs();
        say("seed " + s.seed() + ", window " + s.window() + ", logs in " + logs);
        List<WorkerProcess> workers = new ArrayList<>();
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
        ExecutorService steps = Executors.newCachedThreadPool();
        ChaosRedis redis = ChaosRedis.enabled() ? new ChaosRedis(new File(logs, "redis.log")) : null;
        try (ChaosDatabase db = new ChaosDatabase(new File(s.dir(), "pg-data"))) {
            db.start();
            if (redis != null) {
                redis.start();
                say("Redis limiter and poke: " + ChaosRedis.url());
            }
            HikariDataSource pool = ChaosWorker.pool(db.url(), "chaos-driver", 8);
            Engine driver = driverEngine(pool, timer, steps);
            ChaosSchema.create(pool);
            for (int i = 1; i <= WORKERS; i++) {
                WorkerProcess w = new WorkerProcess(db.url(), logs, "w" + i);
                workers.add(w);
                w.start();
            }
            for (WorkerProcess w : workers) {
                w.awaitReady(120_000);
            }
            say("workers ready; chaos window starts");
            Workload workload = new Workload(driver);
            Saboteur saboteur = new Saboteur(db, workers, s.seed(), s.plan());
            GateProbe gate = new GateProbe(pool, redis);
            var probing = timer.scheduleWithFixedDelay(gate::sample, GateProbe.INTERVAL_MILLIS, GateProbe.INTERVAL_MILLIS,
                    java.util.concurrent.TimeUnit.MILLISECONDS);
            long t0 = System.currentTimeMillis();
            workload.start();
            saboteur.start();
            List<java.util.concurrent.ScheduledFuture<?>> redisFaults = redis == null ? List.of()
                    : redisFaults(timer, redis, s.window().toMillis());
            while (System.currentTimeMillis() - t0 < s.window().toMillis()) {
                Thread.sleep(Math.min(10_000, s.window().toMillis() - (System.currentTimeMillis() - t0) + 1));
                say("inserted " + workload.inserted() + " orders; non-terminal rows " + safeCount(pool,
                        "SELECT count(*) FROM " + ChaosSchema.ENGINE + ".gen_durable WHERE status NOT IN ('done', 'failed')"));
            }
            workload.stopFeeding();
            saboteur.stop();
            redisFaults.forEach(f -> f.cancel(false));
            say("chaos window over: " + saboteur.summary() + (redis == null ? "" : ", " + redis.summary()));
            int relaunched = 0;
            for (WorkerProcess w : workers) {
                relaunched += w.awaitReadyOrRelaunch(120_000) ? 1 : 0;
            }
            workload.awaitSignalsSent(60_000);
            long settleMillis = settle(pool, redis, s.settleMillis(), ChaosRun::say);
            probing.cancel(false);
            for (WorkerProcess w : workers) {
                w.stop();
            }
            workload.close();
            driver.stop();
            Invariants.Report report = new Invariants(pool).check(new Invariants.Inputs(workload.orders(),
                    workload.parents(), workload.flows(), workload.firstSignals(), workload.firstSignalsRetried(), workload.nudges(),
                    gate.finish(),
                    saboteur.pauses(), Recovery.staleAfterPauses(logs, saboteur.pauses())));
            pool.close();
            String summary = "chaos run " + began + " seed=" + s.seed() + " window=" + s.window() + " wall="
                    + Duration.between(began, Instant.now()).toSeconds() + "s settle=" + settleMillis + "ms\n"
                    + "  workload: " + workload.orders().size() + " orders, " + workload.parents().size() + " parents ("
                    + workload.parents().size() * ChaosParent.CHILDREN + " children), " + workload.flows().size()
                    + " inline flows (" + workload.nudges().size() + " nudged), " + workload.duplicatesSent()
                    + " duplicate signals, " + workload.retries() + " driver calls retried\n"
                    + "  faults: " + saboteur.summary() + (redis == null ? "" : ", " + redis.summary()) + "\n"
                    + "  limiter: " + (redis == null ? "postgres" : "redis (and redis pokes)") + "\n"
                    + "  recovery: " + Recovery.scan(logs) + "\n"
                    + (relaunched > 0 ? "  NOTE: " + relaunched + " worker JVMs never got ready after the window and were launched again (see their logs)\n" : "")
                    + report
                    + "  events:\n    " + String.join("\n    ", saboteur.events()) + "\n";
            Files.writeString(new File(s.dir(), "summary.txt").toPath(), summary + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return new Result(report, summary);
        } finally {
            for (WorkerProcess w : workers) {
                w.kill9();
            }
            if (redis != null) {
                redis.close();
            }
            timer.shutdownNow();
            steps.shutdownNow();
        }
    }

    /** The driver's engine: migrates, inserts and signals; it runs no chaos step (its only queue is empty). */
    static Engine driverEngine(HikariDataSource pool, ScheduledExecutorService timer, ExecutorService steps) {
        StepLog unused = new StepLog(pool, "driver");
        FsmRegistry registry = new FsmRegistry();
        registry.register(FsmDefinition.of(new ChaosOrder(unused)));
        registry.register(FsmDefinition.of(new ChaosParent(unused)));
        registry.register(FsmDefinition.of(new ChaosChild(unused)));
        registry.register(FsmDefinition.of(new ChaosFlow(unused)));
        EngineConfig config = ChaosWorker.config("driver").toBuilder().queues(Map.of("driver", 1)).migrateAtStart(true)
                .reaper(new EngineConfig.ReaperConfig(false, Duration.ofSeconds(1), 1000))
                .gc(new EngineConfig.GcConfig(false, Duration.ofSeconds(60), Duration.ofDays(1), Duration.ofDays(1), 10_000)).build();
        Engine e = Engine.builder().dataSource(pool).config(config).registry(registry).timer(timer).steps(steps).build();
        e.start();
        return e;
    }

    /**
     * The Redis faults: its client connections killed about every 9 s from 5 s on, and one restart
     * (SIGKILL, no persistence: every holder lost) at 45 % of the window.
     */
    private static List<java.util.concurrent.ScheduledFuture<?>> redisFaults(ScheduledExecutorService timer, ChaosRedis redis,
                                                                             long windowMillis) {
        java.util.concurrent.TimeUnit ms = java.util.concurrent.TimeUnit.MILLISECONDS;
        return List.of(
                timer.scheduleWithFixedDelay(() -> {
                    redis.dropConnections();
                    say("Redis: client connections killed");
                }, 5_000, 9_000, ms),
                timer.schedule(() -> {
                    try {
                        redis.restart();
                        say("Redis restarted (kill -9, no persistence)");
                    } catch (Exception e) {
                        say("Redis restart failed: " + e);
                    }
                }, windowMillis * 45 / 100, ms));
    }

    /** Waits until the gate has no live holder in Redis; @return the holders left */
    private static long waitForHolders(ChaosRedis redis, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        long n = redis.liveHolders(ChaosChild.GATE_KEY);
        while (n != 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(250);
            n = redis.liveHolders(ChaosChild.GATE_KEY);
        }
        return n;
    }

    /**
     * Waits until every instance is terminal and every gate shard is full again (the Redis
     * limiter's holders gone, when it runs), and says how long it took and what was left.
     *
     * @param redis the Redis of the run, or null for the PostgreSQL limiter
     * @param say   where the line goes (the run's own log prefix)
     * @return how long it took, in milliseconds
     */
    static long settle(HikariDataSource pool, ChaosRedis redis, long settleMillis, java.util.function.Consumer<String> say)
            throws InterruptedException {
        long settleStart = System.currentTimeMillis();
        long settled = waitFor(pool, "SELECT count(*) FROM " + ChaosSchema.ENGINE
                + ".gen_durable WHERE status NOT IN ('done', 'failed')", settleMillis);
        long gateLeft = redis != null ? waitForHolders(redis, 30_000) : waitFor(pool, "SELECT count(*) FROM " + ChaosSchema.ENGINE
                + ".gen_durable_buckets WHERE kind = 'conc' AND available <> capacity", 30_000);
        long millis = System.currentTimeMillis() - settleStart;
        say.accept("settled in " + millis + " ms (non-terminal " + settled + ", gate shards short " + gateLeft + ")");
        return millis;
    }

    static long waitFor(HikariDataSource pool, String countSql, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        long n = safeCount(pool, countSql);
        long lastSay = System.currentTimeMillis();
        while (n != 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(250);
            n = safeCount(pool, countSql);
            if (System.currentTimeMillis() - lastSay > 10_000) {
                say("waiting: " + n + " left for " + countSql);
                lastSay = System.currentTimeMillis();
            }
        }
        return n;
    }

    static long safeCount(HikariDataSource pool, String sql) {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            return -1;
        }
    }

    private static void say(String what) {
        System.out.printf("%tT chaos: %s%n", System.currentTimeMillis(), what);
        System.out.flush();
    }

}
