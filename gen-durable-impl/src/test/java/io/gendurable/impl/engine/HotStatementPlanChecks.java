package io.gendurable.impl.engine;

import static io.gendurable.impl.support.PlanNodes.collect;
import static io.gendurable.impl.support.PlanNodes.fullScans;
import static io.gendurable.impl.support.PlanNodes.indexesOn;
import static io.gendurable.impl.support.PlanNodes.nodes;
import static io.gendurable.impl.support.PlanNodes.seqScans;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.claim.ClaimSql;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.flush.ChildrenSql;
import io.gendurable.impl.flush.FlushSql;
import io.gendurable.impl.gc.GcSql;
import io.gendurable.impl.keys.KeySql;
import io.gendurable.impl.step.InboxSql;
import io.gendurable.impl.support.EngineHarness;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

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
 * The hot statements' plans, checked on the data a subclass fills: the claim goes through
 * {@code gen_durable_pick} in order, the GC through {@code gen_durable_gc}, the inbox and children
 * loads through {@code signals_target} and {@code gen_durable_parent}, the flush, the heartbeat
 * and the release by primary key; none of them scans the instances table sequentially. Each
 * statement is checked under every plan cache mode of {@link #modes()}: the custom plan a first
 * execution gets, and the generic plan a cached prepared statement may switch to after five
 * (the driver prepares these texts on the server, and a server's pool keeps them for its life).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class HotStatementPlanChecks {
    static final int BATCH = 64;

    EngineHarness h;
    SchemaName schema;

    /** Fills the freshly migrated schema (its search path is set). */
    abstract void fill();

    /** @return the plan cache modes every statement is checked under */
    List<String> modes() {
        return List.of("force_custom_plan", "force_generic_plan");
    }

    @BeforeAll
    void load() {
        h = new EngineHarness(getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT));
        h.start("plan", c -> c.queues(Map.of()));   // migrates; runs nothing
        schema = new SchemaName(h.schema());
        fill();
    }

    @AfterAll
    void down() {
        h.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void the_claim_walks_the_pick_index_in_order_and_scans_the_instances_table_nowhere(String mode) {
        JsonObject plan = explain(new ClaimSql(schema).sql(), mode,
                claimArgs("default"));
        assertThat(indexesOn(plan, "gen_durable")).contains("gen_durable_pick");
        assertThat(seqScans(plan)).doesNotContain("gen_durable");
        // The candidate scan is not sorted: the index delivers (priority, eligible_at) order for
        // the queue, so the LIMIT stops it. (The only sort is the per-key dedup of the batch.)
        JsonObject cand = nodes(plan).stream().filter(n -> "CTE cand".equals(n.getString("Subplan Name", null)))
                .findFirst().orElseThrow();
        assertThat(cand.getString("Node Type")).isEqualTo("Limit");
        assertThat(nodeTypes(cand)).doesNotContain("Sort", "Incremental Sort", "Seq Scan", "Bitmap Heap Scan");
        if (mode.equals("force_custom_plan")) {
            // The has_signals probe is an index probe per claimed row, not a scan of every inbox.
            assertThat(seqScans(plan)).doesNotContain("signals");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void the_key_blocking_statements_go_through_indexes(String mode) {
        KeySql keys = new KeySql(schema);
        JsonObject block = explain(keys.blockSql(), mode, "'default'", "'default'", "'default'", "now()", "5000", "5000",
                "'{}'::text[]");
        assertThat(seqScans(block)).doesNotContain("gen_durable");
        assertThat(indexesOn(block, "gen_durable")).contains("gen_durable_pick");
        JsonObject unblock = explain(keys.unblockSql(), mode, "ARRAY['acct:3', 'acct:6', 'hot:1']");
        assertThat(seqScans(unblock)).doesNotContain("gen_durable");
        assertThat(indexesOn(unblock, "gen_durable")).contains("gen_durable_key_blocked", "gen_durable_concurrency_active");
    }

    static List<Long> ids(Connection c, String sql) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    /** @return the pick-index rows a claim of {@code queue} reads in its candidate scans (rolled back) */
    long candidateRowsRead(String queue) {
        JsonObject plan = explainAnalyzeRolledBack(new ClaimSql(schema).sql(), claimArgs(queue));
        return nodes(plan).stream()
                .filter(n -> "gen_durable_pick".equals(n.getString("Index Name", null)))
                .filter(n -> n.getString("Index Cond", "").contains("eligible_at"))
                .mapToLong(PlanTest::rowsRead).sum();
    }

    /** The claims' {@code fsm:version} keys: the seeded rows' FSM and a few more, as a node registering several has. */
    static final String RUNNABLE = "'{a:1,b:1,b:2,f:1,g:1,h:3}'::text[]";

    /** @return the claim's parameters as SQL literals: a batch of {@link #BATCH} from {@code queue}, no gates */
    static String[] claimArgs(String queue) {
        return claimArgs(queue, BATCH);
    }

    /** @return the claim's parameters as SQL literals: a batch of {@code batch} from {@code queue}, no gates */
    static String[] claimArgs(String queue, int batch) {
        String q = "'" + queue + "'";
        return new String[]{q, q, q, "'{}'::text[]", q, "now()", RUNNABLE, "'{}'::text[]", String.valueOf(batch),
            String.valueOf(batch), "'node:default@me'", "now() + interval '30 seconds'", "now()"};
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void the_gc_walks_its_partial_index_and_reads_parents_by_primary_key(String mode) {
        for (GcSql.Kind kind : GcSql.Kind.values()) {
            JsonObject plan = explain(new GcSql(schema).selectSql(kind), mode, "now() - interval '1 day'", "10000");
            assertThat(indexesOn(plan, "gen_durable")).as(kind.name())
                    .contains("gen_durable_gc_" + kind.name().toLowerCase(java.util.Locale.ROOT), "gen_durable_pkey");
            assertThat(seqScans(plan)).as(kind.name()).doesNotContain("gen_durable");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void the_inbox_and_children_loads_go_through_their_indexes(String mode) {
        String targets = idArray("SELECT id FROM gen_durable WHERE status = 'awaiting_signal' ORDER BY id LIMIT " + BATCH);
        JsonObject inbox = explain(new InboxSql(schema).sql(), mode, targets);
        assertThat(indexesOn(inbox, "signals")).containsAnyOf("signals_target", "signals_dedup");
        assertThat(seqScans(inbox)).doesNotContain("signals");

        String parents = idArray("SELECT id FROM gen_durable WHERE status = 'awaiting_children' ORDER BY id LIMIT 10");
        JsonObject children = explain(new ChildrenSql(schema).loadSql(), mode, parents);
        assertThat(indexesOn(children, "gen_durable")).contains("gen_durable_parent");
        assertThat(seqScans(children)).doesNotContain("gen_durable");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void the_flush_locks_and_updates_its_rows_by_primary_key_never_through_the_lease_index(String mode) {
        String ids = idArray("SELECT id FROM gen_durable WHERE status = 'executing' ORDER BY id LIMIT " + BATCH);
        FlushSql flush = FlushSql.in(new Statements(schema));
        JsonObject lock = explain(flush.lockSql(), mode, ids);
        assertThat(indexesOn(lock, "gen_durable")).containsExactly("gen_durable_pkey");

        String n = "ARRAY[" + BATCH + "]";
        JsonObject update = explain(flush.updateSql(), mode, ids,
                "array_fill('node:default@x'::text, " + n + ")", "array_fill(1, " + n + ")",
                "array_fill('done'::text, " + n + ")", "array_fill(NULL::text, " + n + ")",
                "array_fill(false, " + n + ")", "array_fill(NULL::text, " + n + ")",
                "array_fill('KEEP'::text, " + n + ")", "array_fill(NULL::bigint, " + n + ")",
                "array_fill(true, " + n + ")", "array_fill('{}'::text, " + n + ")",
                "array_fill(NULL::text, " + n + ")", "array_fill('CLEAR'::text, " + n + ")",
                "array_fill(NULL::text, " + n + ")", "array_fill(NULL::bigint, " + n + ")",
                "array_fill(false, " + n + ")", "array_fill(NULL::text, " + n + ")",
                "array_fill(1, " + n + ")", "array_fill('KEEP'::text, " + n + ")",
                "array_fill(NULL::text, " + n + ")", "array_fill(false, " + n + ")",
                "array_fill(NULL::bigint, " + n + ")", "now()");
        // one primary-key probe per outcome; a plan over gen_durable_lease reads every executing
        // row (and the dead entries a burn-down leaves) per flush
        assertThat(indexesOn(update, "gen_durable")).contains("gen_durable_pkey").doesNotContain("gen_durable_lease");
        assertThat(seqScans(update)).doesNotContain("gen_durable");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void the_claim_of_a_woken_row_goes_by_primary_key(String mode) {
        String id = String.valueOf(h.queryLong("SELECT min(id) FROM gen_durable WHERE status = 'runnable'"));
        JsonObject plan = explain(new ClaimSql(schema).byIdSql(), mode, "'node:default@me'",
                "now() + interval '30 seconds'", "now()", id, "now()", RUNNABLE);
        // the row is found by its id through an index (the primary key, or an operations index that
        // leads with the status and holds the id): never a scan, never the pick index
        assertThat(seqScans(plan)).doesNotContain("gen_durable", "signals");
        assertThat(indexesOn(plan, "gen_durable")).doesNotContain("gen_durable_pick");
        assertThat(io.gendurable.impl.support.PlanNodes.scans(plan, "gen_durable"))
                .anySatisfy(n -> assertThat(n.getString("Index Cond", "")).contains("(id = "));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void the_heartbeat_and_the_release_go_by_primary_key_never_through_a_sequential_scan(String mode) {
        String ids = idArray("SELECT id FROM gen_durable WHERE status = 'executing' ORDER BY id LIMIT " + BATCH);
        String tokens = ids;  // any bigint[] of the same length: the plan does not depend on the values
        io.gendurable.impl.lease.LeaseSql lease = new io.gendurable.impl.lease.LeaseSql(schema);
        for (String sql : List.of(lease.heartbeatSql(), lease.releaseSql())) {
            JsonObject plan = explain(sql, mode, ids, tokens, "'node:default@x'", "now()");
            assertThat(indexesOn(plan, "gen_durable")).as(sql).contains("gen_durable_pkey").doesNotContain("gen_durable_lease");
            assertThat(seqScans(plan)).as(sql).doesNotContain("gen_durable");
        }
    }

    /** @return the ids the query selects, as a {@code bigint[]} literal */
    String idArray(String query) {
        try (Connection c = h.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + h.schema());
            try (ResultSet rs = s.executeQuery("SELECT array_agg(id)::text FROM (" + query + ") x")) {
                rs.next();
                return "'" + rs.getString(1) + "'::bigint[]";
            } finally {
                s.execute("RESET search_path");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- EXPLAIN plumbing -------------------------------------------------------------------

    /**
     * Prepares {@code sql} on the server (its {@code ?} become {@code $n}) and explains one
     * execution with the given SQL literals under {@code plan_cache_mode = mode}.
     */
    JsonObject explain(String sql, String mode, String... args) {
        try (Connection c = h.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DEALLOCATE ALL");
            s.execute(Db.PLANNER_SETTINGS.replace(", true)", ", false)"));   // as the engine's transactions plan
            s.execute("SET plan_cache_mode = " + mode);   // then the mode under test
            s.execute("PREPARE q AS " + dollarParams(sql));
            try {
                JsonObject plan = plan(s, "EXPLAIN (FORMAT JSON) EXECUTE q(" + String.join(", ", args) + ")");
                // no statement reads the instances table whole: no sequential scan, and no walk of a
                // whole index (as a hashed sub-plan would)
                assertThat(fullScans(plan, "gen_durable")).as(mode + ": " + sql).isEmpty();
                return plan;
            } finally {
                s.execute("DEALLOCATE q");
                s.execute("RESET ALL");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    JsonObject explainAnalyzeRolledBack(String sql, String... args) {
        try (Connection c = h.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DEALLOCATE ALL");
            c.setAutoCommit(false);
            try {
                s.execute(Db.PLANNER_SETTINGS);
                s.execute("PREPARE q AS " + dollarParams(sql));
                return plan(s, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE q(" + String.join(", ", args) + ")");
            } finally {
                c.rollback();
                c.setAutoCommit(true);
                s.execute("DEALLOCATE ALL");   // PREPARE is not transactional
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static JsonObject plan(Statement s, String explain) throws SQLException {
        try (ResultSet rs = s.executeQuery(explain)) {
            rs.next();
            String json = rs.getString(1);
            System.out.println(explain + "\n" + json);
            try (var reader = jakarta.json.Json.createReader(new StringReader(json))) {
                return reader.readArray().getJsonObject(0);
            }
        }
    }

    /** The engine's texts use JDBC's {@code ?}; a server-side PREPARE wants {@code $1, $2, …}. */
    static String dollarParams(String sql) {
        StringBuilder out = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            if (ch == '?') {
                out.append('$').append(++n);
            } else {
                out.append(ch);
            }
        }
        return out.toString();
    }


    static List<String> nodeTypes(JsonObject plan) {
        JsonObject root = plan.containsKey("Plan") ? (JsonObject) plan.get("Plan") : plan;
        List<JsonObject> all = new ArrayList<>();
        collect(root, all);
        return all.stream().map(n -> n.getString("Node Type")).toList();
    }

    /** Index entries a scan node produced, the ones its filter removed included, over all its loops. */
    static long rowsRead(JsonObject scan) {
        long removed = scan.containsKey("Rows Removed by Filter") ? scan.getJsonNumber("Rows Removed by Filter").longValue() : 0;
        return (scan.getJsonNumber("Actual Rows").longValue() + removed)
                * Math.max(1, scan.getJsonNumber("Actual Loops").longValue());
    }

}
