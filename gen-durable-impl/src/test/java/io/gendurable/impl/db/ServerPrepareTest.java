package io.gendurable.impl.db;

import io.gendurable.NewInstance;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Item;
import io.gendurable.impl.support.Fsms.TwoSteps;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
    }

    @Test
    void the_claim_and_the_flush_run_as_server_side_prepared_statements() {
        int n = 2000;
        Engine web = h.start("web", c -> c.queues(Map.of()), new TwoSteps());
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(NewInstance.of(TwoSteps.class, new Item(i)));
        }
        web.insertAll(batch);
        h.wrapDataSource(this::watch);
        Engine e = h.start("worker", c -> c.queues(Map.of("default", 16)).prefetch(16), new TwoSteps());
        await().atMost(Duration.ofSeconds(60)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == n);
        e.stop();

        assertThat(prepared).as("statements prepared on the server").anyMatch(s -> s.contains("WITH cand AS"));
        assertThat(prepared).anyMatch(s -> s.contains("WITH u AS"));
        assertThat(prepared).anyMatch(s -> s.contains("lease_expires_at"));
    }

    private DataSource watch(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[]{DataSource.class},
                (proxy, m, args) -> {
                    Object r = invoke(target, m, args);
                    return r instanceof Connection c ? onClose(c) : r;
                });
    }

    private Connection onClose(Connection c) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                (proxy, m, args) -> {
                    if (m.getName().equals("close") && !c.isClosed()) {
                        record(c);
                    }
                    return invoke(c, m, args);
                });
    }

    private void record(Connection c) throws SQLException {
        boolean auto = c.getAutoCommit();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")) {
            while (rs.next()) {
                prepared.add(rs.getString(1));
            }
        }
        if (!auto) {
            c.rollback();
        }
    }

    private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

}
