package io.gendurable.impl.support;

import io.gendurable.testing.SharedTestDatabase;
import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.Fsm;
import io.gendurable.FsmNames;
import io.gendurable.NewInstance;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;
import org.awaitility.Awaitility;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.UnaryOperator;

/**
 * One schema on the tests' database, and any number of engines ("nodes") on it, each with its
 * own executors. Close it to stop every engine and drop nothing (schemas are unique per run).
 */
public final class EngineHarness implements AutoCloseable {
    private final String schema;
    private final HikariDataSource dataSource;
    private final List<Engine> engines = new ArrayList<>();
    private final List<ExecutorService> executors = new ArrayList<>();
    private java.util.function.UnaryOperator<javax.sql.DataSource> wrapper = ds -> ds;

    public EngineHarness(String hint) {
        this.schema = SharedTestDatabase.newSchema(hint);
        this.dataSource = SharedTestDatabase.dataSource(40);
    }

    /** @return the schema of this harness */
    public String schema() {
        return schema;
    }

    /** @return a pooled DataSource on the database */
    public HikariDataSource dataSource() {
        return dataSource;
    }

    /** Engines built from now on see the DataSource through this wrapper (e.g. a statement counter). */
    public void wrapDataSource(java.util.function.UnaryOperator<javax.sql.DataSource> wrapper) {
        this.wrapper = wrapper;
    }

    /** @return a counter of the statements prepared through the engines built from now on */
    public StatementCounter countStatements() {
        StatementCounter counter = new StatementCounter();
        wrapDataSource(counter::wrap);
        return counter;
    }

    /**
     * Inserts a backlog that no engine runs yet: {@code n} instances of {@code fsm}'s class, states
     * {@code Item(0)} to {@code Item(n - 1)}, in one batch through an insert-only engine ("web").
     */
    public void insertBacklog(Fsm<Fsms.Item> fsm, int n) {
        Engine web = start("web", c -> c.queues(Map.of()), fsm);
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(new NewInstance(FsmNames.nameOf(fsm.getClass()), new Fsms.Item(i), null));
        }
        web.insertAll(batch);
    }

    /** Waits, up to a minute, until {@code n} rows of this schema are done. */
    public void awaitDone(long n) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == n);
    }

    /** @return test-friendly defaults: fast polls, short intervals, this schema */
    public EngineConfig config(String nodeId) {
        return configBuilder(nodeId).build();
    }

    /** @return a builder holding {@link #config(String)}, to tweak */
    public EngineConfig.Builder configBuilder(String nodeId) {
        return EngineConfig.builder().nodeId(nodeId).schema(schema)
                .queues(Map.of("default", 4))
                .poll(Duration.ofMillis(50), Duration.ofMillis(200))
                .lease(Duration.ofSeconds(30), Duration.ofSeconds(5))
                .drainTimeout(Duration.ofSeconds(5))
                .reaper(new EngineConfig.ReaperConfig(false, Duration.ofSeconds(1), 1000))
                .gc(new EngineConfig.GcConfig(false, Duration.ofSeconds(60), Duration.ofDays(1), Duration.ofDays(1), 10_000));
    }

    /** Starts an engine ("node") with the given FSMs and a configuration tweak (on a builder holding {@link #config(String)}). */
    public Engine start(String nodeId, UnaryOperator<EngineConfig.Builder> tweak, InstantSource clock, Fsm<?>... fsms) {
        Engine e = build(nodeId, tweak, clock, fsms);
        e.start();
        return e;
    }

    /** Starts an engine with the system clock. */
    public Engine start(String nodeId, UnaryOperator<EngineConfig.Builder> tweak, Fsm<?>... fsms) {
        return start(nodeId, tweak, InstantSource.system(), fsms);
    }

    /** Builds (does not start) an engine. */
    public Engine build(String nodeId, UnaryOperator<EngineConfig.Builder> tweak, InstantSource clock, Fsm<?>... fsms) {
        return build(nodeId, tweak, clock, UnaryOperator.identity(), fsms);
    }

    /**
     * Builds (does not start) an engine, with a last say on its builder (its step executor, its
     * observers…); the harness stops it, and shuts down the executors it made or was {@linkplain #owned given}.
     */
    public Engine build(String nodeId, UnaryOperator<EngineConfig.Builder> tweak, InstantSource clock,
                        UnaryOperator<Engine.Builder> engine, Fsm<?>... fsms) {
        FsmRegistry registry = new FsmRegistry();
        for (Fsm<?> f : fsms) {
            registry.register(FsmDefinition.of(f));
        }
        ScheduledExecutorService timer = owned(Executors.newScheduledThreadPool(4));
        ExecutorService steps = owned(Executors.newCachedThreadPool());
        Engine e = engine.apply(Engine.builder().dataSource(wrapper.apply(dataSource)).config(tweak.apply(configBuilder(nodeId)).build())
                .registry(registry).timer(timer).steps(steps).clock(clock)).build();
        engines.add(e);
        return e;
    }

    /** @return {@code executor}, shut down with the harness */
    public <T extends ExecutorService> T owned(T executor) {
        executors.add(executor);
        return executor;
    }

    /** Work on one connection, inside its transaction. @param <T> what it answers */
    @FunctionalInterface
    public interface Work<T> {
        /** @param c the connection, this harness's schema on its search path @return the answer */
        T run(java.sql.Connection c) throws java.sql.SQLException;
    }

    /**
     * Runs {@code work} in one transaction with this harness's schema on the search path, as the
     * engine's own statements expect: committed when it returns, rolled back when it throws.
     */
    public <T> T inTransaction(Work<T> work) throws java.sql.SQLException {
        try (java.sql.Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (var s = c.createStatement()) {
                s.execute("SET LOCAL search_path TO " + schema);
            }
            try {
                T out = work.run(c);
                c.commit();
                return out;
            } catch (java.sql.SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** Runs SQL against this harness's schema (it is on the search path). */
    public void exec(String sql) {
        SharedTestDatabase.exec(dataSource, "SET search_path TO " + schema + "; " + sql);
    }

    /**
     * Makes row {@code id} look claimed by a worker that may be dead: {@code executing}, locked by
     * {@code worker}, a fresh claim token, its lease expiring at {@code now() + leaseLeft} (a
     * PostgreSQL interval; negative: already expired).
     */
    public void claimedBy(long id, String worker, String leaseLeft) {
        exec("UPDATE gen_durable SET status = 'executing', claim_token = nextval('gen_durable_claim_token'), locked_by = '"
                + worker + "', lease_expires_at = now() + interval '" + leaseLeft + "' WHERE id = " + id);
    }

    /**
     * @return how many backends wait for a lock that {@code holder} holds, running a statement that
     * contains {@code fragment}: the waiters of this test's own connection (a database-wide count of
     * lock waits would also see other tests' and builds' waits)
     */
    public long waitingOn(java.sql.Connection holder, String fragment) {
        int pid;
        try (var s = holder.createStatement(); var rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            pid = rs.getInt(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("the holder's backend pid", e);
        }
        return queryLong("SELECT count(*) FROM pg_stat_activity WHERE " + pid + " = ANY(pg_blocking_pids(pid))"
                + " AND query LIKE '%" + fragment.replace("'", "''") + "%'");
    }

    /** Reads one text (or null) from this harness's schema. */
    public String queryString(String sql) {
        try (var c = dataSource.getConnection(); var s = c.createStatement()) {
            s.execute("SET search_path TO " + schema);
            try (var rs = s.executeQuery(sql)) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Reads one long from this harness's schema. */
    public long queryLong(String sql) {
        try (var c = dataSource.getConnection(); var s = c.createStatement()) {
            s.execute("SET search_path TO " + schema);
            try (var rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    @Override
    public void close() {
        for (Engine e : engines) {
            try {
                e.stop();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        executors.forEach(ExecutorService::shutdownNow);
        dataSource.close();
    }
}
