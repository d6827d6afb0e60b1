package io.gendurable.impl.engine;

import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's hot statements run the plan {@link EmptyTablePlanTest} checks, the generic one,
 * from their first execution on each connection: no custom plan, which sized a batch by its
 * array (the flush's first executions then hashed the whole table through its primary key) and,
 * for the claim, was planned anew on every execution. Read from {@code pg_prepared_statements} on
 * every connection of the engine's pool after a burn-down.
 */
@EngineTest
class GenericPlansTest {
    /** The statements' first words: the claim, the flush's update and its lock step. */
    private static final List<String> HOT = List.of("WITH RECURSIVE prio AS", "WITH u AS", "SELECT g.id, CASE WHEN");

    @Test
    void hot_statements_run_their_generic_plan_from_the_first_execution(EngineHarness h) throws Exception {
        int n = 3000;
        Fsms.Noop fsm = new Fsms.Noop();
        h.insertBacklog(fsm, n);
        h.start("worker", c -> c.queues(Map.of("default", 16)), fsm);
        h.awaitDone(n);

        Map<String, long[]> plans = new TreeMap<>();  // statement -> {generic, custom}
        List<Connection> held = new ArrayList<>();
        try {
            int total = h.dataSource().getHikariPoolMXBean().getTotalConnections();
            for (int i = 0; i < total; i++) {   // every connection the pool holds (each its own cache)
                Connection c = h.dataSource().getConnection();
                held.add(c);
                try (ResultSet rs = c.createStatement().executeQuery(
                        "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")) {
                    while (rs.next()) {
                        String sql = rs.getString(1).replaceAll("\\s+", " ").trim();
                        HOT.stream().filter(sql::startsWith).findFirst().ifPresent(hot -> {
                            long[] counts = plans.computeIfAbsent(hot, k -> new long[2]);
                            try {
                                counts[0] += rs.getLong(2);
                                counts[1] += rs.getLong(3);
                            } catch (java.sql.SQLException e) {
                                throw new IllegalStateException(e);
                            }
                        });
                    }
                }
            }
        } finally {
            for (Connection c : held) {
                c.close();
            }
        }
        assertThat(plans).as("server-prepared hot statements").containsOnlyKeys(HOT);
        plans.forEach((sql, counts) -> {
            assertThat(counts[1]).as("custom plans of " + sql).isZero();
            assertThat(counts[0]).as("generic plans of " + sql).isPositive();
        });
    }
}
