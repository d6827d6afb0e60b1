package io.gendurable.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimiterBackend;
import io.gendurable.impl.config.PokeTransport;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.runtime.EngineMetrics;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One chaos worker: a separate JVM running an engine with the chaos FSMs until it is killed
 * ({@code kill -9}) or terminated (SIGTERM: a graceful drain). Arguments: JDBC URL, node id.
 * The engine's pool is HikariCP, as outside an application server.
 */
public final class ChaosWorker {
    /** The line a worker prints once its engine runs. */
    public static final String READY = "CHAOS-WORKER-READY";
    /** The lease: long against the steps' few ms, and against a worker JVM's restart (so that a
     * restart under the same node id can often beat the other nodes' reapers to its start-up
     * reclaim), short enough that a worker paused beyond it (SIGSTOP) keeps the run short. */
    public static final Duration LEASE = Duration.ofSeconds(10);
    /** The heartbeat interval. */
    public static final Duration HEARTBEAT = Duration.ofSeconds(2);
    /** The reaper's (and the await-timeout sweep's) interval. */
    public static final Duration REAPER_INTERVAL = Duration.ofSeconds(1);
    /** Rows each queue claims beyond its running slots: above the children queue's concurrency. */
    public static final int PREFETCH = 3;
    /** The rate limit of {@link ChaosOrder}'s finish step. */
    public static final String RATE = "psp";

    private ChaosWorker() {
    }

    /** @param args JDBC URL, node id */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ChaosWorker <jdbc-url> <node-id>");
        }
        String url = args[0];
        String node = args[1];
        HikariDataSource ds = pool(url, "chaos-engine-" + node, 12);
        HikariDataSource logDs = pool(url, "chaos-log-" + node, 8);
        StepLog log = new StepLog(logDs, node);
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(4);
        ExecutorService steps = Executors.newCachedThreadPool();
        Engine engine = startEngine(ds, log, node, timer, steps);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            engine.stop();
            System.out.println(describe(engine.metrics()) + " (after the drain)");
            System.out.flush();
            timer.shutdownNow();
            steps.shutdownNow();
            ds.close();
            logDs.close();
        }));
        System.out.println(READY + " " + node);
        // a first metrics line at once: every incarnation's counters have a baseline (Recovery)
        System.out.println(describe(engine.metrics()) + health(engine));
        System.out.flush();
        long every = Long.getLong(METRICS_EVERY, 5_000);
        while (true) {
            Thread.sleep(every);
            System.out.println(describe(engine.metrics()) + health(engine));
            System.out.flush();
        }
    }

    /** Builds and starts the engine; retries while the database is unreachable (a restart under way). */
    private static Engine startEngine(HikariDataSource ds, StepLog log, String node, ScheduledExecutorService timer,
                                      ExecutorService steps) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            FsmRegistry registry = new FsmRegistry();
            registry.register(FsmDefinition.of(new ChaosOrder(log)));
            registry.register(FsmDefinition.of(new ChaosParent(log)));
            registry.register(FsmDefinition.of(new ChaosChild(log)));
            registry.register(FsmDefinition.of(new ChaosFlow(log)));
            Engine engine = null;
            try {
                engine = Engine.builder().dataSource(ds).config(config(node)).registry(registry)
                        .timer(timer).steps(steps).build();
                engine.start();
                return engine;
            } catch (RuntimeException e) {
                System.err.println("chaos worker " + node + ": start attempt " + attempt + " failed: " + e
                        + "; a direct connection " + probe(ds.getJdbcUrl()));
                if (attempt % 10 == 0) {
                    dumpPoolThreads();
                }
                if (engine != null) {
                    try {
                        engine.stop();
                    } catch (RuntimeException ignored) {
                        // a half-started engine: its leases expire
                    }
                }
                if (attempt >= 60) {
                    throw e;
                }
                Thread.sleep(1_000);
            }
        }
    }

    /** @return what a connection outside the pool gets: the pool's own errors are not logged here */
    private static String probe(String url) {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
             java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity")) {
            rs.next();
            return "works (" + rs.getInt(1) + " backends)";
        } catch (java.sql.SQLException e) {
            return "fails: " + e.getMessage();
        }
    }

    private static void dumpPoolThreads() {
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (t.getName().contains("chaos-") || t.getName().contains("Hikari")) {
                System.err.println("thread " + t.getName() + " " + t.getState());
                for (StackTraceElement e : stack) {
                    System.err.println("    at " + e);
                }
            }
        });
    }

    /** The system property: milliseconds between metrics lines (default 5000). */
    public static final String METRICS_EVERY = "chaos.metrics.every";

    /** @return readiness (UP/DOWN) and the JVM's live threads, appended to a metrics line (the failover run reads them) */
    private static String health(Engine engine) {
        boolean up;
        try {
            up = engine.health().readiness().up();
        } catch (RuntimeException e) {
            up = false;
        }
        return " ready=" + (up ? "UP" : "DOWN") + " threads=" + Thread.activeCount();
    }

    /** @return the workers' engine configuration */
    static EngineConfig config(String node) {
        return EngineConfig.builder().nodeId(node).schema(ChaosSchema.ENGINE)
                .queues(Map.of("orders", 4, "fanout", 2, ChaosChild.QUEUE, ChaosChild.QUEUE_CONCURRENCY, ChaosFlow.QUEUE, 2))
                .migrateAtStart(false)  // the driver migrated once, before any worker
                .poll(Duration.ofMillis(50), Duration.ofMillis(500))
                .lease(LEASE, HEARTBEAT)
                .prefetch(PREFETCH)
                .drainTimeout(Duration.ofSeconds(3))
                .reaper(new EngineConfig.ReaperConfig(true, REAPER_INTERVAL, 1000))
                // the GC's loop runs the gate reconciler; terminal rows stay (the checks read them)
                .gc(new EngineConfig.GcConfig(true, Duration.ofSeconds(2), Duration.ofDays(1), Duration.ofDays(1), 10_000))
                .poke(ChaosRedis.enabled() ? PokeTransport.REDIS : PokeTransport.POSTGRES)
                .limiter(ChaosRedis.enabled() ? LimiterBackend.REDIS : LimiterBackend.POSTGRES)
                .redisUrl(ChaosRedis.url())
                .flushers(List.of(new EngineConfig.FlusherConfig(List.of("*"), 100, Duration.ofMillis(5))))
                .limits(limits()).build();
    }

    /** @return the rate limits {@code psp} and {@code burst}, and the gate {@code pool} */
    static LimitsConfig limits() {
        return new LimitsConfig(
                Map.of(RATE, new LimitsConfig.RateLimit(RATE, 40, Duration.ofSeconds(1), 20, 1),
                        // about the flows' arrival rate (5/s): bursts after a fault are throttled,
                        // some inline admissions are denied and requeued
                        ChaosFlow.RATE, new LimitsConfig.RateLimit(ChaosFlow.RATE, 6, Duration.ofSeconds(1), 3, 1)),
                Map.of(ChaosChild.GATE, new LimitsConfig.Gate(ChaosChild.GATE, ChaosChild.GATE_LIMIT, 1)));
    }

    /** @return a pool on the chaos database, named in pg_stat_activity */
    static HikariDataSource pool(String url, String applicationName, int size) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setMaximumPoolSize(size);
        c.setMinimumIdle(1);
        c.setConnectionTimeout(2_000);
        c.setValidationTimeout(1_000);
        c.setInitializationFailTimeout(-1);  // the database may be restarting when a worker starts
        c.addDataSourceProperty("ApplicationName", applicationName);
        c.setPoolName(applicationName);
        return new HikariDataSource(c);
    }

    private static String describe(EngineMetrics m) {
        return "metrics at=" + System.currentTimeMillis() + " picks=" + m.picks.sum() + " picked=" + m.picked.sum() + " flushes=" + m.flushes.sum()
                + " flushErrors=" + m.flushErrors.sum() + " stale=" + m.stale.sum() + " reaped=" + m.reaped.sum()
                + " reclaimed=" + m.reclaimed.sum() + " loopErrors=" + m.loopErrors.sum()
                + " pokeReconnects=" + m.pokeReconnects.sum() + " bucketsReconciled=" + m.bucketsReconciled.sum()
                + " released=" + m.released.sum() + " awaitTimeouts=" + m.awaitTimeouts.sum()
                + " rateThrottled=" + m.rateThrottled.sum() + " gateThrottled=" + m.gateThrottled.sum();
    }
}
