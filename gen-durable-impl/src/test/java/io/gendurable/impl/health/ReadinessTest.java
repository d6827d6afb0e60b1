package io.gendurable.impl.health;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.TcpProxy;
import io.gendurable.testing.SharedTestDatabase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Readiness against a real PostgreSQL: UP on a started engine at the expected schema version;
 * DOWN before start, after stop, on a schema behind, ahead or with a failed migration; DOWN in
 * time when the database is cut (refused, or a dead network whose reads hang) and UP again once
 * it is back, while liveness stays UP (an outage makes a node unready, not dead).
 */
@EngineTest
class ReadinessTest {
    static final Duration TIMEOUT = Duration.ofMillis(800);

    private static EngineConfig.Builder quiet(EngineConfig.Builder c) {
        return c.queues(Map.of()).health(new EngineConfig.HealthConfig(TIMEOUT, Duration.ofSeconds(10)));
    }

    @Test
    void a_started_engine_at_the_expected_schema_version_is_ready_and_a_stopped_one_is_not(EngineHarness h) {
        Engine e = h.build("ready", ReadinessTest::quiet, java.time.InstantSource.system());
        EngineHealth.Check before = e.health().readiness();
        assertThat(before.up()).isFalse();
        assertThat(before.data()).containsEntry("engine", "not started");

        e.start();
        EngineHealth.Check up = e.health().readiness();
        assertThat(up.up()).as(up.toString()).isTrue();
        assertThat(up.data()).containsEntry("engine", "started").containsEntry("database", "UP")
                .containsEntry("schema version", Migrations.EXPECTED_VERSION)
                .containsEntry("expected version", Migrations.EXPECTED_VERSION);

        e.stop();
        EngineHealth.Check after = e.health().readiness();
        assertThat(after.up()).isFalse();
        assertThat(after.data()).containsEntry("engine", "stopped");
    }

    public record Job(int n) {
    }

    /** Holds its step until released. */
    public static class Long implements io.gendurable.Fsm<Job> {
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);

        @Override
        public io.gendurable.Outcome step(String step, Job job, io.gendurable.StepContext ctx) throws Exception {
            entered.countDown();
            release.await(30, java.util.concurrent.TimeUnit.SECONDS);
            return io.gendurable.Outcome.done();
        }
    }

    /**
     * The probe does not queue behind steps. It ran on the step executor: with a bounded one (a
     * container's managed executor) busy with long steps, the probe waited in its queue past the
     * timeout and a healthy node answered DOWN under load. It now has a thread of its own.
     */
    @Test
    void a_step_executor_busy_with_long_steps_does_not_make_a_healthy_node_unready(EngineHarness h) throws Exception {
        ExecutorService one = Executors.newFixedThreadPool(1);  // a bounded executor, all of it taken by one step
        Long fsm = new Long();
        try {
            Engine e = h.build("busy", c -> quiet(c).queues(Map.of("default", 1)), java.time.InstantSource.system(),
                    b -> b.steps(one), fsm);
            e.start();
            e.insert(Long.class, new Job(1));
            assertThat(fsm.entered.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            EngineHealth.Check ready = e.health().readiness();
            assertThat(ready.up()).as(ready.toString()).isTrue();
            fsm.release.countDown();
            e.stop();
        } finally {
            fsm.release.countDown();
            one.shutdownNow();
        }
    }

    @Test
    void a_schema_behind_ahead_or_with_a_failed_migration_is_not_ready(EngineHarness h) {
        Engine e = h.start("schema", ReadinessTest::quiet);
        assertThat(e.health().readiness().up()).isTrue();
        String history = Migrations.HISTORY_TABLE;

        h.exec("UPDATE " + history + " SET version = '1.9' WHERE version = '" + Migrations.EXPECTED_VERSION + "'");
        EngineHealth.Check behind = e.health().readiness();
        assertThat(behind.up()).isFalse();
        // the latest version applied is now the one before the expected one (versions are whole numbers)
        String previous = String.valueOf(Integer.parseInt(Migrations.EXPECTED_VERSION) - 1);
        assertThat(behind.data()).containsEntry("database", "UP").containsEntry("schema version", previous);

        h.exec("UPDATE " + history + " SET version = '" + Migrations.EXPECTED_VERSION + "' WHERE version = '1.9'");
        assertThat(e.health().readiness().up()).isTrue();

        h.exec("INSERT INTO " + history + " (installed_rank, version, description, type, script, installed_by, execution_time, success)"
                + " VALUES (1000, '99', 'from the future', 'SQL', 'V99__future.sql', 'test', 1, true)");
        EngineHealth.Check ahead = e.health().readiness();
        assertThat(ahead.up()).isFalse();
        assertThat(ahead.data()).containsEntry("schema version", "99");

        h.exec("UPDATE " + history + " SET success = false WHERE version = '99'");
        EngineHealth.Check failed = e.health().readiness();
        assertThat(failed.up()).isFalse();
        assertThat(failed.data()).containsEntry("failed migrations", "99")
                .containsEntry("schema version", Migrations.EXPECTED_VERSION);

        h.exec("DELETE FROM " + history + " WHERE version = '99'");
        assertThat(e.health().readiness().up()).isTrue();
    }

    @Test
    void without_a_history_table_only_a_schema_installed_by_hand_is_ready(EngineHarness h) {
        Engine migrated = h.start("hand", ReadinessTest::quiet);
        h.exec("DROP TABLE " + Migrations.HISTORY_TABLE);
        EngineHealth.Check missing = migrated.health().readiness();
        assertThat(missing.up()).isFalse();
        assertThat(missing.data().get("schema version")).startsWith("none: no table");

        Engine byHand = h.start("hand2", c -> quiet(c).migrateAtStart(false));
        EngineHealth.Check notChecked = byHand.health().readiness();
        assertThat(notChecked.up()).as(notChecked.toString()).isTrue();
        assertThat(notChecked.data().get("schema version")).startsWith("not checked");
    }

    /**
     * Readiness data is public ({@code /health/ready} answers anonymous callers): a refused
     * connection is reported DOWN without the driver's text, which names the host and port. A
     * DataSource without a pool fails at once, with that text (a server's pool answered the same).
     */
    @Test
    void a_refused_database_is_reported_down_naming_no_host_or_port(EngineHarness h) throws Exception {
        java.util.concurrent.atomic.AtomicBoolean refuse = new java.util.concurrent.atomic.AtomicBoolean();
        // the engine's DataSource, refusing as the driver does when nothing listens on the database's port
        h.wrapDataSource(ds -> (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                ReadinessTest.class.getClassLoader(), new Class<?>[] {javax.sql.DataSource.class}, (proxy, m, args) -> {
                    if (refuse.get() && m.getName().equals("getConnection")) {
                        throw new java.sql.SQLException("Connection to 127.0.0.1:54329 refused. Check that the hostname"
                                + " and port are correct and that the postmaster is accepting TCP/IP connections.", "08001");
                    }
                    try {
                        return m.invoke(ds, args);
                    } catch (java.lang.reflect.InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                }));
        Engine e = h.start("refused", ReadinessTest::quiet);
        assertThat(e.health().readiness().up()).isTrue();
        refuse.set(true);
        EngineHealth.Check c = e.health().readiness();
        assertThat(c.up()).isFalse();
        assertThat(c.data().get("database")).startsWith("DOWN").contains("SQLState 08001");
        assertThat(c.data().toString()).as(c.toString()).doesNotContain("127.0.0.1").doesNotContain("54329")
                .doesNotContain("refused");
        refuse.set(false);
    }

    @Test
    void a_cut_database_is_reported_down_in_time_and_up_again_once_it_is_back(EngineHarness h) throws Exception {
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(4);
        ExecutorService steps = Executors.newCachedThreadPool();
        try (TcpProxy proxy = TcpProxy.to(SharedTestDatabase.url()); HikariDataSource ds = pool(proxy)) {
            // loops that touch the database: the reaper and the gauges, every 100 ms
            Engine e = Engine.builder().dataSource(ds).registry(new FsmRegistry()).timer(timer).steps(steps)
                    .config(quiet(h.configBuilder("cut"))
                            .reaper(new EngineConfig.ReaperConfig(true, Duration.ofMillis(100), 100))
                            .gauges(new EngineConfig.GaugesConfig(true, Duration.ofMillis(100))).build())
                    .build();
            e.start();
            try {
                assertThat(e.health().readiness().up()).isTrue();

                for (TcpProxy.Mode cut : new TcpProxy.Mode[]{TcpProxy.Mode.REFUSE, TcpProxy.Mode.BLACKHOLE}) {
                    proxy.mode(cut);
                    // every check answers within the timeout (plus scheduling slack), never hangs on the socket
                    await().atMost(Duration.ofSeconds(5)).until(() -> !timed(e).up());
                    for (int i = 0; i < 3; i++) {
                        long t0 = System.nanoTime();
                        EngineHealth.Check c = e.health().readiness();
                        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as(cut + ": " + c)
                                .isLessThan(TIMEOUT.plusMillis(500));
                        assertThat(c.up()).as(cut + ": " + c).isFalse();
                        assertThat(c.data().get("database")).startsWith("DOWN");
                        // the readiness data is public (/health/ready): no host, port or driver text
                        assertThat(c.data().toString()).as(cut + ": " + c).doesNotContain("127.0.0.1")
                                .doesNotContain(String.valueOf(proxy.port()));
                    }
                    // the loops go on trying: an outage is not a dead node
                    EngineHealth.Check live = e.health().liveness();
                    assertThat(live.up()).as(live.toString()).isTrue();

                    proxy.mode(TcpProxy.Mode.FORWARD);
                    await().atMost(Duration.ofSeconds(15)).until(() -> timed(e).up());
                }
            } finally {
                e.stop();
            }
        } finally {
            timer.shutdownNow();
            steps.shutdownNow();
        }
    }

    private static EngineHealth.Check timed(Engine e) {
        long t0 = System.nanoTime();
        EngineHealth.Check c = e.health().readiness();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as(c.toString()).isLessThan(TIMEOUT.plusMillis(500));
        return c;
    }

    /** A pool through the proxy with a long connection timeout, as a server's pool has: the probe's own deadline must hold. */
    private static HikariDataSource pool(TcpProxy proxy) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(proxy.rewrite(SharedTestDatabase.url()));
        if (!SharedTestDatabase.url().contains("user=")) {
            c.setUsername("postgres");
        }
        c.setMaximumPoolSize(8);
        c.setConnectionTimeout(30_000);
        c.setValidationTimeout(1_000);
        return new HikariDataSource(c);
    }
}
