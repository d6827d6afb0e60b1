package io.gendurable.impl.gauges;

import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.support.EngineHarness;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.StringReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gauges' statement on a large, analyzed table (600,000 rows: mostly terminal, 150,000
 * runnable, 2,000 executing, 20,000 parked): the runnable branch is an index-only scan of
 * {@code gen_durable_pick} (or a bitmap scan of it, as the planner prefers), the executing branch goes through
 * {@code gen_durable_lease}; the parked branch scans the table unless an index on {@code status}
 * exists (schema version 2 has none; the operations API's search index is one), in which case it
 * must use it. Checked as the custom and the generic plan (the driver prepares the statement).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GaugesPlanTest {
    EngineHarness h;
    SchemaName schema;

    @BeforeAll
    void load() {
        h = new EngineHarness("gaugeplan");
        h.start("plan", c -> c.queues(Map.of()));
        schema = new SchemaName(h.schema());
        h.exec("""
                INSERT INTO gen_durable (fsm, step, status, updated_at)
                SELECT 'f', 'end', CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'done' END::durable_status, now()
                FROM generate_series(1, 428000) i;
                INSERT INTO gen_durable (fsm, step, queue, priority, eligible_at)
                SELECT 'f', 'start', (ARRAY['default', 'checkout', 'mail'])[1 + i % 3], i % 3,
                       now() + ((i % 7200) - 5400) * interval '1 second'
                FROM generate_series(1, 150000) i;
                INSERT INTO gen_durable (fsm, step, queue, status, locked_by, claim_token, lease_expires_at)
                SELECT 'f', 'run', 'default', 'executing', 'n:default@x', nextval('gen_durable_claim_token'),
                       now() + interval '30 seconds'
                FROM generate_series(1, 2000) i;
                INSERT INTO gen_durable (fsm, step, queue, status, awaits)
                SELECT 'f', 'wait', 'default', 'awaiting_signal', ARRAY['go'] FROM generate_series(1, 19000) i;
                INSERT INTO gen_durable (fsm, step, queue, status, children_pending)
                SELECT 'p', 'join', 'mail', 'awaiting_children', 3 FROM generate_series(1, 1000) i;
                """);
        io.gendurable.testing.SharedTestDatabase.exec(h.dataSource(), "VACUUM ANALYZE " + h.schema() + ".gen_durable");
    }

    @AfterAll
    void down() {
        h.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"force_custom_plan", "force_generic_plan"})
    void the_runnable_and_executing_branches_read_their_partial_indexes_and_only_the_parked_one_may_scan(String mode) throws SQLException {
        JsonObject plan = explain(new GaugesSql(schema).sql().replace("?", "now()"), mode);
        List<JsonObject> scans = new ArrayList<>();
        collect(plan.getJsonObject("Plan"), scans);
        List<String> indexes = scans.stream().map(n -> n.getString("Index Name", "")).toList();
        // runnable rows through the pick index (index-only, or a bitmap of it: the planner's choice), executing through the lease index
        assertThat(indexes).as(plan.toString()).contains("gen_durable_pick", "gen_durable_lease");
        long seq = scans.stream().filter(n -> n.getString("Node Type").equals("Seq Scan")).count();
        boolean statusIndex = h.queryLong("SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema()"
                + " AND indexdef ~ 'gen_durable USING btree \\(status'") > 0;
        // one sequential scan at most, the parked branch's, and none once an index leads with status
        assertThat(seq).as(plan.toString()).isLessThanOrEqualTo(statusIndex ? 0 : 1);
        assertThat(plan.getJsonNumber("Execution Time").doubleValue()).as("ms").isLessThan(2000);
        System.out.printf("gauges query (%s, 600k rows, status index %s): %.1f ms%n", mode, statusIndex,
                plan.getJsonNumber("Execution Time").doubleValue());
    }

    private JsonObject explain(String sql, String mode) throws SQLException {
        try (Connection c = h.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + h.schema());
            s.execute("SET plan_cache_mode = " + mode);
            s.execute("PREPARE g AS " + sql);
            try (ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE g")) {
                rs.next();
                JsonArray a = Json.createReader(new StringReader(rs.getString(1))).readArray();
                s.execute("DEALLOCATE g");
                return a.getJsonObject(0);
            }
        }
    }

    private static void collect(JsonObject node, List<JsonObject> out) {
        out.add(node);
        JsonValue kids = node.get("Plans");
        if (kids != null) {
            kids.asJsonArray().forEach(k -> collect(k.asJsonObject(), out));
        }
    }
}
