package io.gendurable.impl.db;

import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.JdbcSpy;
import io.gendurable.impl.support.Fsms.TwoSteps;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hot statements are prepared once per connection on the server (pgjdbc switches a
 * statement text to a named server-side statement after {@code prepareThreshold} uses and
 * keeps it in its per-connection cache): every time the engine hands a connection back, the
 * test reads that connection's {@code pg_prepared_statements}; after a burn-down the claim and
 * the flush must be among them. A regression (SQL text built per call, a cache-defeating
 * literal) makes them disappear.
 */
@EngineTest
class ServerPrepareTest {
    EngineHarness h;
    final Set<String> prepared = ConcurrentHashMap.newKeySet();
    /** Statement texts that ran on a generic plan on some connection. */
    final Set<String> generic = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
    }

    @Test
    void the_claim_and_the_flush_run_as_server_side_prepared_statements() {
        burnDownWatched();

        assertThat(prepared).as("statements prepared on the server").anyMatch(s -> s.contains("WITH RECURSIVE prio AS"));
        assertThat(prepared).anyMatch(s -> s.contains("WITH u AS"));
        assertThat(prepared).anyMatch(s -> s.contains("lease_expires_at"));
    }

    /**
     * A generic plan is made once, for the table as it was then, and a pooled connection keeps it:
     * planned while the table held a few rows (a first deployment, a table emptied by TRUNCATE),
     * the flush walked the whole primary key for each outcome once the table had grown (a live
     * in-server run: PostgreSQL 250–300 µs a job instead of 30). The engine's transactions plan
     * each execution for the table as it is: no claim or flush ever runs on a generic plan, however
     * often its connection runs it.
     */
    @Test
    void the_claim_and_the_flush_never_run_on_a_generic_plan() {
        burnDownWatched();

        assertThat(prepared).anyMatch(s -> s.contains("WITH RECURSIVE prio AS"));
        assertThat(prepared).anyMatch(s -> s.contains("WITH u AS"));
        assertThat(generic).as("statements that ran on a generic plan")
                .noneMatch(s -> s.contains("WITH RECURSIVE prio AS") || s.contains("WITH u AS"));
    }

    /** Burns down 2,000 two-step instances, reading each connection's statements as it is handed back. */
    private void burnDownWatched() {
        int n = 2000;
        h.insertBacklog(new TwoSteps(), n);
        h.wrapDataSource(this::watch);
        Engine e = h.start("worker", c -> c.queues(Map.of("default", 16)).prefetch(16), new TwoSteps());
        h.awaitDone(n);
        e.stop();
    }

    /** Reads each connection's server-prepared statements when the engine hands it back. */
    private DataSource watch(DataSource target) {
        return JdbcSpy.connections(target, c -> JdbcSpy.around(c, (method, args, call) -> {
            if (method.getName().equals("close") && !c.isClosed()) {
                record(c);
            }
            return call.proceed();
        }));
    }

    private void record(Connection c) throws SQLException {
        boolean auto = c.getAutoCommit();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT statement, generic_plans FROM pg_prepared_statements WHERE NOT from_sql")) {
            while (rs.next()) {
                prepared.add(rs.getString(1));
                if (rs.getLong(2) > 0) {
                    generic.add(rs.getString(1));
                }
            }
        }
        if (!auto) {
            c.rollback();
        }
    }
}
