package io.gendurable.impl.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.PokeTransport;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.JdbcSpy;
import io.gendurable.impl.support.TestPgBouncer;
import io.gendurable.testing.SharedTestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The engine through a real PgBouncer in transaction mode ({@link TestPgBouncer}): its DataSource
 * goes through the pooler with {@code prepareThreshold=0}, and what needs a session (the
 * migrations, the {@code postgres} poke's {@code LISTEN}) goes to its session DataSource, a direct
 * pool. The pooler has fewer server connections than the engines borrow at once, so their
 * transactions share server connections: a named server-side statement would be missing on, or
 * collide on, the next transaction's connection.
 */
@EngineTest
class PgBouncerTest {
    private static final int SERVER_CONNECTIONS = 3;
    private static TestPgBouncer bouncer;

    @BeforeAll
    static void startPgBouncer() {
        bouncer = TestPgBouncer.start(SERVER_CONNECTIONS);
    }

    @AfterAll
    static void stopPgBouncer() {
        if (bouncer != null) {
            bouncer.close();
        }
    }

    public record Order(int n) {
    }

    /** Every fifth order fans out two children, every fifth waits for "go", the rest take two steps. */
    public static class Orders implements Fsm<Order> {
        @Override
        public Outcome step(String step, Order o, StepContext ctx) {
            if (!step.equals("start")) {
                return Outcome.done(o);
            }
            return switch (o.n() % 5) {
                case 0 -> Outcome.scheduleChildren(List.of(NewInstance.of(Parts.class, new Order(o.n() * 10 + 1)),
                        NewInstance.of(Parts.class, new Order(o.n() * 10 + 2))), "joined", o);
                case 1 -> Outcome.await(Set.of("go"), "woken", o);
                default -> Outcome.next("second", o);
            };
        }
    }

    /** A child: two steps. */
    public static class Parts implements Fsm<Order> {
        @Override
        public Outcome step(String step, Order o, StepContext ctx) {
            return step.equals("start") ? Outcome.next("end", o) : Outcome.done(o);
        }
    }

    /** Named statements in transaction mode: the control that the pooler really shares a server connection between clients. */
    @Test
    void two_clients_on_one_server_connection_collide_on_named_statements_unless_prepare_threshold_is_0() throws SQLException {
        try (HikariDataSource defaults = bouncer.pool(TestPgBouncer.SINGLE, "", 2);
             Connection a = defaults.getConnection(); Connection b = defaults.getConnection()) {
            repeat(a);  // pgjdbc names it S_1 after prepareThreshold (5) uses, on the one server connection
            assertThatThrownBy(() -> repeat(b)).as("the second client's S_1 on the same server connection")
                    .isInstanceOf(SQLException.class).hasMessageContaining("prepared statement").hasMessageContaining("already exists");
        }
        try (HikariDataSource unnamed = bouncer.pool(TestPgBouncer.SINGLE, "prepareThreshold=0", 2);
             Connection a = unnamed.getConnection(); Connection b = unnamed.getConnection()) {
            repeat(a);
            repeat(b);
        }
    }

    private static void repeat(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT ?::int + 1")) {
            for (int i = 0; i < 10; i++) {
                ps.setInt(1, i);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertThat(rs.getInt(1)).isEqualTo(i + 1);
                }
            }
        }
    }

    @Test
    void a_mixed_workload_finishes_through_pgbouncer_in_transaction_mode_with_fewer_server_connections_than_it_borrows(
            EngineHarness h) throws Exception {
        String app = "gdpgb_" + ProcessHandle.current().pid() + "_" + h.schema().hashCode();
        List<SQLException> errors = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger borrowed = new AtomicInteger();
        AtomicInteger mostBorrowed = new AtomicInteger();
        try (HikariDataSource pooled = bouncer.pool(TestPgBouncer.POOLED, "prepareThreshold=0&ApplicationName=" + app, 24)) {
            List<String> pooledSql = Collections.synchronizedList(new ArrayList<>());
            List<String> sessionSql = Collections.synchronizedList(new ArrayList<>());
            DataSource engines = recording(counting(JdbcSpy.errors(pooled, errors::add), borrowed, mostBorrowed), pooledSql);
            DataSource session = recording(h.dataSource(), sessionSql);
            h.wrapDataSource(ds -> engines);
            LimitsConfig limits = new LimitsConfig(
                    Map.of("psp", new LimitsConfig.RateLimit("psp", 500, Duration.ofSeconds(1), 50, 1)),
                    Map.of("api", new LimitsConfig.Gate("api", 2, 1)));
            Engine web = start(h, "web", session, c -> c.queues(Map.of()).limits(limits));
            Engine n1 = start(h, "n1", session, c -> c.queues(Map.of("default", 8)).limits(limits)
                    .reaper(new EngineConfig.ReaperConfig(true, Duration.ofSeconds(1), 1000)));
            Engine n2 = start(h, "n2", session, c -> c.queues(Map.of("default", 8)).limits(limits));

            int orders = 200;
            List<NewInstance> batch = new ArrayList<>();
            for (int n = 0; n < orders; n++) {
                InsertOptions.Builder o = InsertOptions.builder().correlationKey("order-" + n);
                switch (n % 4) {
                    case 0 -> o.concurrencyKey("account-" + n % 3);  // K = 1
                    case 1 -> o.concurrencyKey("api:" + n % 2);     // the gate, 2 at once
                    case 2 -> o.rateLimit("psp");
                    default -> { }
                }
                batch.add(NewInstance.of(Orders.class, new Order(n), o.build()));
            }
            for (int from = 0; from < orders; from += 50) {
                web.insertAll(batch.subList(from, from + 50));
            }
            int parked = orders / 5;
            await().alias("every waiting order parked on its signal").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'awaiting_signal'") == parked);
            for (int n = 1; n < orders; n += 5) {
                assertThat(web.signal(SignalTarget.correlationKey("order-" + n), "go", new Order(n)))
                        .isEqualTo(SignalResult.DELIVERED);
            }
            h.awaitDone(orders + 2L * parked);

            assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status <> 'done'")).isZero();
            assertThat(errors).as("errors on the engines' connections through PgBouncer")
                    .noneMatch(e -> "26000".equals(e.getSQLState()) || "42P05".equals(e.getSQLState())
                            || String.valueOf(e.getMessage()).contains("prepared statement"));
            // the expected races, each retried by the engine: K = 1 keys, and two limiters minting a
            // cold gate or rate key's shards at once (PostgresLimiter: counted as contended)
            assertThat(errors).as("errors on the engines' connections through PgBouncer, other than K = 1 or limiter contention")
                    .allMatch(e -> "23505".equals(e.getSQLState())
                            && (String.valueOf(e.getMessage()).contains("gen_durable_concurrency_active")
                            || String.valueOf(e.getMessage()).contains("gen_durable_buckets_pkey")));
            assertThat(n1.metrics().flushErrors.sum() + n2.metrics().flushErrors.sum()).isZero();
            // the precondition: the engines borrowed more connections at once than the pooler had
            // server connections, which their transactions therefore shared
            assertThat(mostBorrowed.get()).as("connections the engines held at once").isGreaterThan(SERVER_CONNECTIONS);
            assertThat(pooled.getHikariPoolMXBean().getTotalConnections()).isEqualTo(24);
            assertThat(h.queryLong("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + app + "'"))
                    .as("server connections of PgBouncer's clients").isBetween(1L, (long) SERVER_CONNECTIONS);
            web.stop();
            n1.stop();
            n2.stop();
            // what keeps a session went to the session DataSource, and nothing through the pooler sets session state
            assertThat(pooledSql).as("statements through PgBouncer").isNotEmpty()
                    .noneMatch(q -> SESSION_STATE.matcher(q).find());
            assertThat(sessionSql).as("the session DataSource's statements")
                    .anyMatch(q -> q.contains(Migrations.HISTORY_TABLE)).anyMatch(q -> q.startsWith("LISTEN "));
        }
    }

    @Test
    void the_postgres_poke_listens_on_the_session_data_source_while_the_rest_goes_through_pgbouncer(EngineHarness h)
            throws Exception {
        String app = "gdpgbs_" + ProcessHandle.current().pid() + "_" + h.schema().hashCode();
        String url = SharedTestDatabase.url();
        HikariConfig direct = new HikariConfig();
        direct.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + app);
        if (!url.contains("user=")) {
            direct.setUsername("postgres");
        }
        direct.setMaximumPoolSize(3);
        try (HikariDataSource pooled = bouncer.pool(TestPgBouncer.POOLED, "prepareThreshold=0", 6);
             HikariDataSource session = new HikariDataSource(direct)) {
            h.wrapDataSource(ds -> pooled);
            Duration slowPoll = Duration.ofSeconds(60);
            Engine a = h.build("A", c -> c.queues(Map.of()).poke(PokeTransport.POSTGRES), InstantSource.system(),
                    b -> b.sessionDataSource(session), new Orders(), new Parts());
            a.start();
            Engine b = h.build("B", c -> c.poke(PokeTransport.POSTGRES).poll(slowPoll, slowPoll),
                    InstantSource.system(), e -> e.sessionDataSource(session), new Orders(), new Parts());
            b.start();
            await().alias("B listens and has made its first claim").atMost(Duration.ofSeconds(10))
                    .until(() -> EngineInternals.pokeListenerPid(b) > 0 && b.metrics().picks.sum() >= 1);
            assertThat(h.queryString("SELECT application_name FROM pg_stat_activity WHERE pid = "
                    + EngineInternals.pokeListenerPid(b))).as("the listener's backend").isEqualTo(app);

            long id = a.insert(Orders.class, new Order(2)).id();
            // B claims next at its 60 s poll: done well before that, it was poked
            await().alias("the row inserted on A done by B before B's next poll").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(5)).until(() -> b.find(id).orElseThrow().status() == Status.DONE);
            assertThat(b.metrics().pokesReceived.sum()).isGreaterThanOrEqualTo(1);
            a.stop();
            b.stop();
        }
    }

    /** SQL that leaves state in the session (a pooler in transaction mode hands that session to other clients). */
    private static final java.util.regex.Pattern SESSION_STATE = java.util.regex.Pattern.compile(
            "(?i)\\bLISTEN\\b|pg_(try_)?advisory_lock|set_config\\([^)]*,\\s*false\\s*\\)|\\bTEMP(ORARY)?\\s+TABLE"
                    + "|^\\s*SET\\s+(?!LOCAL\\b|TRANSACTION\\b)|\\bPREPARE\\s|\\bDEALLOCATE\\b");

    private static Engine start(EngineHarness h, String node, DataSource session,
                                java.util.function.UnaryOperator<EngineConfig.Builder> tweak) {
        Engine e = h.build(node, c -> tweak.apply(c.poke(PokeTransport.POSTGRES)), InstantSource.system(),
                b -> b.sessionDataSource(session), new Orders(), new Parts());
        e.start();
        return e;
    }

    /** @return {@code target}, adding to {@code sql} the text of every statement prepared or executed on its connections */
    private static DataSource recording(DataSource target, List<String> sql) {
        return JdbcSpy.connections(target, c -> JdbcSpy.deep(c, (method, args, call) -> {
            String name = method.getName();
            if (args != null && args.length > 0 && args[0] instanceof String q && (name.startsWith("prepare")
                    || name.startsWith("execute") || name.equals("addBatch") || name.equals("nativeSQL"))) {
                sql.add(q.strip());
            }
            return call.proceed();
        }));
    }

    /** @return {@code target}, counting in {@code now} the connections borrowed and not yet closed, the most in {@code most} */
    private static DataSource counting(DataSource target, AtomicInteger now, AtomicInteger most) {
        return JdbcSpy.connections(target, c -> {
            most.accumulateAndGet(now.incrementAndGet(), Math::max);
            AtomicBoolean closed = new AtomicBoolean();
            return JdbcSpy.around(c, (method, args, call) -> {
                if (method.getName().equals("close") && closed.compareAndSet(false, true)) {
                    now.decrementAndGet();
                }
                return call.proceed();
            });
        });
    }
}
