package io.gendurable.impl.db;

import io.gendurable.impl.support.EngineHarness;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's transactions plan with sequential scans off and JIT off ({@link Db#PLANNER_SETTINGS}),
 * for their own statements only: the connection, back in the pool (an application's, in a
 * server), keeps its own settings afterwards.
 */
class PlannerSettingsTest {
    private static final String SETTINGS = "SELECT current_setting('enable_seqscan'), current_setting('jit')";

    @Test
    void an_engine_transaction_plans_without_sequential_scans_or_jit_and_leaves_the_session_as_it_was() throws Exception {
        try (EngineHarness h = new EngineHarness("planner-settings")) {
            // one connection, so that the transaction and the reads after it share a session
            com.zaxxer.hikari.HikariConfig cfg = new com.zaxxer.hikari.HikariConfig();
            cfg.setDataSource(h.dataSource());
            cfg.setMaximumPoolSize(1);
            try (com.zaxxer.hikari.HikariDataSource one = new com.zaxxer.hikari.HikariDataSource(cfg)) {
                Db db = new Db(null, one);  // its transactions on the DataSource alone (no persistence unit)
                List<String> before = read(one);
                List<String> inside = db.inTransaction(c -> read(c));
                assertThat(inside).as("enable_seqscan, jit inside an engine transaction").containsExactly("off", "off");
                assertThat(read(one)).as("the session's own settings after it").isEqualTo(before);
            }
        }
    }

    private static List<String> read(javax.sql.DataSource ds) throws Exception {
        try (Connection c = ds.getConnection()) {
            return read(c);
        }
    }

    private static List<String> read(Connection c) throws java.sql.SQLException {
        try (ResultSet rs = c.createStatement().executeQuery(SETTINGS)) {
            rs.next();
            return List.of(rs.getString(1), rs.getString(2));
        }
    }
}
