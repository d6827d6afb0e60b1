package io.gendurable.impl.engine;

import static io.gendurable.impl.support.PlanNodes.collect;
import static io.gendurable.impl.support.PlanNodes.indexesOn;
import static io.gendurable.impl.support.PlanNodes.nodes;
import static io.gendurable.impl.support.PlanNodes.seqScans;
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
 * The hot statements' plans on a table big enough for the planner to care (about 300,000
 * instance rows in every status, 20,000 signals, 20,000 children, analyzed): the claim goes
 * through {@code gen_durable_pick} and stops after its batch, the GC through
 * {@code gen_durable_gc}, the inbox and children loads through {@code signals_target} and
 * {@code gen_durable_parent}; none of them scans the instances table sequentially. Each
 * statement is checked twice, as the custom plan a first execution gets and as the generic plan
 * a cached prepared statement may switch to after five, because the driver prepares these texts
 * on the server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlanTest {
    static final int RUNNABLE = 100_000;
    static final int BATCH = 64;
    /** Rows of queue {@code later} at priority 0, due in a year; its due work is at priority 5. */
    static final int FAR_FUTURE = 100_000;
    /** Rows of one K = 1 key waiting in queue {@code hot} behind its running row, ahead of 1,000 ordinary rows. */
    static final int HOT = 20_000;

    EngineHarness h;
    SchemaName schema;

    @BeforeAll
    void load() {
        h = new EngineHarness("plan");
        h.start("plan", c -> c.queues(Map.of()));   // migrates; runs nothing
        schema = new SchemaName(h.schema());
        h.exec("""
                -- the backlog of the claimed queue: three priorities, due over the last day
                INSERT INTO gen_durable (fsm, step, queue, priority, eligible_at)
                SELECT 'f', 'start', 'default', i % 3, now() - (i % 86400) * interval '1 second'
                FROM generate_series(1, $RUNNABLE) i;
                -- another queue's backlog, some of it scheduled for later
                INSERT INTO gen_durable (fsm, step, queue, eligible_at)
                SELECT 'f', 'start', 'other', now() + (i %% 7200 - 3600) * interval '1 second'
                FROM generate_series(1, 50000) i;
                -- a queue whose most urgent priority holds only rows due in a year, its due work at a lower one
                INSERT INTO gen_durable (fsm, step, queue, priority, eligible_at)
                SELECT 'f', 'start', 'later', 0, now() + interval '365 days' + i * interval '1 second'
                FROM generate_series(1, $FAR_FUTURE) i;
                INSERT INTO gen_durable (fsm, step, queue, priority)
                SELECT 'f', 'start', 'later', 5 FROM generate_series(1, 1000) i;
                -- terminal rows that ended over the last two days (the GC's candidates, half past retention)
                INSERT INTO gen_durable (fsm, step, status, updated_at)
                SELECT 'f', 'end', CASE WHEN i %% 20 = 0 THEN 'cancelled' WHEN i %% 10 = 0 THEN 'failed' ELSE 'done' END::durable_status,
                       now() - (i %% 172800) * interval '1 second'
                FROM generate_series(1, 100000) i;
                -- executing rows, a third of them holding a K = 1 key
                INSERT INTO gen_durable (fsm, step, status, locked_by, claim_token, lease_expires_at, concurrency_key)
                SELECT 'f', 'run', 'executing', 'node:default@x', nextval('gen_durable_claim_token'), now() + interval '30 seconds',
                       CASE WHEN i %% 3 = 0 THEN 'acct:' || i END
                FROM generate_series(1, 2000) i;
                -- runnable rows waiting behind those keys
                INSERT INTO gen_durable (fsm, step, queue, concurrency_key)
                SELECT 'f', 'start', 'default', 'acct:' || (i * 3) FROM generate_series(1, 600) i;
                -- queue hot: one K = 1 key running, $HOT rows of it waiting first in pick order, then ordinary work
                INSERT INTO gen_durable (fsm, step, status, queue, locked_by, claim_token, lease_expires_at, concurrency_key)
                VALUES ('f', 'run', 'executing', 'hot', 'node:hot@x', nextval('gen_durable_claim_token'),
                        now() + interval '30 seconds', 'hot:1');
                INSERT INTO gen_durable (fsm, step, queue, concurrency_key, eligible_at)
                SELECT 'f', 'start', 'hot', 'hot:1', now() - interval '1 hour' + i * interval '1 millisecond'
                FROM generate_series(1, $HOT) i;
                INSERT INTO gen_durable (fsm, step, queue) SELECT 'f', 'start', 'hot' FROM generate_series(1, 1000) i;
                -- parked rows, each with an inbox
                INSERT INTO gen_durable (fsm, step, status, awaits)
                SELECT 'f', 'wait', 'awaiting_signal', ARRAY['go'] FROM generate_series(1, 5000) i;
                INSERT INTO signals (target_id, name, payload, dedup_key)
                SELECT g.id, 'item', '{}'::jsonb, 'k' || s
                FROM (SELECT id FROM gen_durable WHERE status = 'awaiting_signal' ORDER BY id LIMIT 1000) g,
                     generate_series(1, 20) s;
                -- a hundred parents mid-join, two hundred children each, half of them ended
                INSERT INTO gen_durable (fsm, step, status, children_pending)
                SELECT 'p', 'joined', 'awaiting_children', 100 FROM generate_series(1, 100);
                INSERT INTO gen_durable (fsm, step, status, parent_id, updated_at)
                SELECT 'c', 'start', CASE WHEN s %% 2 = 0 THEN 'done' ELSE 'runnable' END::durable_status, p.id,
                       now() - interval '3 days'
                FROM (SELECT id FROM gen_durable WHERE status = 'awaiting_children') p, generate_series(1, 200) s;
                ANALYZE gen_durable;
                ANALYZE signals;
                """.replace("%%", "%").replace("$RUNNABLE", String.valueOf(RUNNABLE))
                .replace("$FAR_FUTURE", String.valueOf(FAR_FUTURE)).replace("$HOT", String.valueOf(HOT)));
    }

    @AfterAll
    void down() {
        h.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"force_custom_plan", "force_generic_plan"})
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

    @Test
    void the_claim_reads_about_one_batch_of_index_entries_out_of_a_hundred_thousand_runnable_rows() {
        // EXPLAIN ANALYZE runs the UPDATE: do it in a transaction that rolls back.
        JsonObject plan = explainAnalyzeRolledBack(new ClaimSql(schema).sql(),
                claimArgs("default"));
        // the candidate scan; the other scans of the pick index are the priority probes (one row each)
        List<JsonObject> pickScans = nodes(plan).stream()
                .filter(n -> "gen_durable_pick".equals(n.getString("Index Name", null)))
                .filter(n -> n.getString("Index Cond", "").contains("eligible_at")).toList();
        assertThat(pickScans).hasSize(1);
        long read = rowsRead(pickScans.get(0));
        System.out.printf("plan: the claim read %d pick-index rows for a batch of %d (backlog %d)%n", read, BATCH, RUNNABLE);
        // The LIMIT stops the scan: a batch plus the keyed rows it skips, not the backlog.
        assertThat(read).isBetween((long) BATCH, (long) BATCH * 4);
        assertThat(((JsonObject) plan.get("Plan")).getJsonNumber("Actual Rows").longValue()).isEqualTo(BATCH);
    }

    @Test
    void a_far_future_backlog_at_a_more_urgent_priority_is_not_read_by_the_claim() {
        JsonObject plan = explainAnalyzeRolledBack(new ClaimSql(schema).sql(), claimArgs("later"));
        List<JsonObject> pickScans = nodes(plan).stream()
                .filter(n -> "gen_durable_pick".equals(n.getString("Index Name", null))).toList();
        long buffers = pickScans.stream().mapToLong(n -> n.getJsonNumber("Shared Hit Blocks").longValue()
                + n.getJsonNumber("Shared Read Blocks").longValue()).sum();
        System.out.printf("plan: the claim read %d buffers of the pick index for a batch of %d beside %d far-future rows%n",
                buffers, BATCH, FAR_FUTURE);
        assertThat(((JsonObject) plan.get("Plan")).getJsonNumber("Actual Rows").longValue()).isEqualTo(BATCH);
        // A batch's worth of pages, not the index pages of the far-future rows (about 500).
        assertThat(buffers).isLessThan(100);
    }

    @Test
    void the_rows_a_busy_key_holds_back_are_read_by_every_claim_until_blocked_then_by_none() throws SQLException {
        KeySql keys = new KeySql(schema);
        long before = candidateRowsRead("hot");
        int blocked = 0;
        try (Connection c = h.dataSource().getConnection()) {
            for (int n = -1; n != 0; ) {
                n = keys.block(c, "hot", java.time.Instant.now(), 5_000, new String[0]).blocked();
                blocked += n;
            }
        }
        long after = candidateRowsRead("hot");
        System.out.printf("plan: beside %d rows of a busy K = 1 key the claim read %d pick-index rows; %d once they were blocked%n",
                HOT, before, after);
        assertThat(before).as("the key's waiting rows, read by the claim").isGreaterThanOrEqualTo(HOT);
        assertThat(blocked).as("all but the key's head, its first row").isEqualTo(HOT - 1);
        assertThat(after).as("a batch, the blocked rows out of the pick index").isBetween((long) BATCH, (long) BATCH * 4);
        String firstTwo = "SELECT id FROM " + schema.instances() + " WHERE queue = 'hot' AND status = 'runnable'"
                + " AND concurrency_key = 'hot:1' ORDER BY priority, eligible_at, id LIMIT 2";
        String unblocked = "SELECT id FROM " + schema.instances() + " WHERE queue = 'hot' AND status = 'runnable'"
                + " AND concurrency_key = 'hot:1' AND NOT key_blocked ORDER BY id";
        try (Connection c = h.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThat(ids(c, unblocked)).as("the head").isEqualTo(ids(c, firstTwo).subList(0, 1));
            // the key's row still runs: nothing is unblocked
            assertThat(keys.unblock(c, List.of("hot:1"))).isEmpty();
            // once it has ended, exactly the first blocked row is
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE " + schema.instances() + " SET status = 'done', locked_by = NULL, lease_expires_at = NULL"
                        + " WHERE queue = 'hot' AND status = 'executing'");
            }
            assertThat(keys.unblock(c, List.of("hot:1"))).containsExactly("hot");
            assertThat(ids(c, unblocked)).isEqualTo(ids(c, firstTwo));
            c.rollback();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"force_custom_plan", "force_generic_plan"})
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

    private static List<Long> ids(Connection c, String sql) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    /** @return the pick-index rows a claim of {@code queue} reads in its candidate scans (rolled back) */
    private long candidateRowsRead(String queue) {
        JsonObject plan = explainAnalyzeRolledBack(new ClaimSql(schema).sql(), claimArgs(queue));
        return nodes(plan).stream()
                .filter(n -> "gen_durable_pick".equals(n.getString("Index Name", null)))
                .filter(n -> n.getString("Index Cond", "").contains("eligible_at"))
                .mapToLong(PlanTest::rowsRead).sum();
    }

    /** @return the claim's parameters as SQL literals: a batch of {@link #BATCH} from {@code queue}, no gates */
    private static String[] claimArgs(String queue) {
        String q = "'" + queue + "'";
        return new String[]{q, q, q, "'{}'::text[]", q, "now()", "'{}'::text[]", String.valueOf(BATCH),
            String.valueOf(BATCH), "'node:default@me'", "now() + interval '30 seconds'", "now()"};
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"force_custom_plan", "force_generic_plan"})
    void the_gc_walks_its_partial_index_and_reads_parents_by_primary_key(String mode) {
        for (GcSql.Kind kind : GcSql.Kind.values()) {
            JsonObject plan = explain(new GcSql(schema).selectSql(kind), mode, "now() - interval '1 day'", "10000");
            assertThat(indexesOn(plan, "gen_durable")).as(kind.name())
                    .contains("gen_durable_gc_" + kind.name().toLowerCase(java.util.Locale.ROOT), "gen_durable_pkey");
            assertThat(seqScans(plan)).as(kind.name()).doesNotContain("gen_durable");
        }
    }

    @Test
    void a_gc_batch_reads_one_batch_plus_the_spared_children_of_parents_mid_join() {
        // Past a one-day retention: 13,600 terminal rows, and 10,000 ended children (three days
        // old, the oldest of all) whose parents are still mid-join. A batch of 1,000.
        JsonObject plan = explainAnalyzeRolledBack(new GcSql(schema).selectSql(GcSql.Kind.DONE), "now() - interval '1 day'", "1000");
        List<JsonObject> gcScans = nodes(plan).stream()
                .filter(n -> "gen_durable_gc_done".equals(n.getString("Index Name", null))).toList();
        assertThat(gcScans).hasSize(1);
        assertThat(gcScans.get(0).getString("Node Type")).isEqualTo("Index Scan");
        long read = rowsRead(gcScans.get(0));
        System.out.printf("plan: a GC batch of 1000 read %d gc-index rows (10000 of them spared children)%n", read);
        // In termination order, the LIMIT stops the scan after the batch; but the spared children
        // sit at the head of the index and every batch reads past them again (a known cost: it
        // grows with the ended children of parents still mid-join, not with the table).
        assertThat(read).isBetween(1000L, 10_000L + 2 * 1000L);
        assertThat(((JsonObject) plan.get("Plan")).getJsonNumber("Actual Rows").longValue()).isEqualTo(1000);
        assertThat(seqScans(plan)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"force_custom_plan", "force_generic_plan"})
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
    @ValueSource(strings = {"force_custom_plan", "force_generic_plan"})
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
    @ValueSource(strings = {"force_custom_plan", "force_generic_plan"})
    void the_claim_of_a_woken_row_goes_by_primary_key(String mode) {
        String id = String.valueOf(h.queryLong("SELECT min(id) FROM gen_durable WHERE status = 'runnable'"));
        JsonObject plan = explain(new ClaimSql(schema).byIdSql(), mode, "'node:default@me'",
                "now() + interval '30 seconds'", "now()", id, "now()");
        // the row is found by its id through an index (the primary key, or an operations index that
        // leads with the status and holds the id): never a scan, never the pick index
        assertThat(seqScans(plan)).doesNotContain("gen_durable", "signals");
        assertThat(indexesOn(plan, "gen_durable")).doesNotContain("gen_durable_pick");
        assertThat(io.gendurable.impl.support.PlanNodes.scans(plan, "gen_durable"))
                .anySatisfy(n -> assertThat(n.getString("Index Cond", "")).contains("(id = "));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"force_custom_plan", "force_generic_plan"})
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
    private String idArray(String query) {
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
    private JsonObject explain(String sql, String mode, String... args) {
        try (Connection c = h.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DEALLOCATE ALL");
            s.execute("SET plan_cache_mode = " + mode);
            s.execute("PREPARE q AS " + dollarParams(sql));
            try {
                return plan(s, "EXPLAIN (FORMAT JSON) EXECUTE q(" + String.join(", ", args) + ")");
            } finally {
                s.execute("DEALLOCATE q");
                s.execute("RESET plan_cache_mode");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private JsonObject explainAnalyzeRolledBack(String sql, String... args) {
        try (Connection c = h.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DEALLOCATE ALL");
            c.setAutoCommit(false);
            try {
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

    private static JsonObject plan(Statement s, String explain) throws SQLException {
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


    private static List<String> nodeTypes(JsonObject plan) {
        JsonObject root = plan.containsKey("Plan") ? (JsonObject) plan.get("Plan") : plan;
        List<JsonObject> all = new ArrayList<>();
        collect(root, all);
        return all.stream().map(n -> n.getString("Node Type")).toList();
    }

    /** Index entries a scan node produced, the ones its filter removed included, over all its loops. */
    private static long rowsRead(JsonObject scan) {
        long removed = scan.containsKey("Rows Removed by Filter") ? scan.getJsonNumber("Rows Removed by Filter").longValue() : 0;
        return (scan.getJsonNumber("Actual Rows").longValue() + removed)
                * Math.max(1, scan.getJsonNumber("Actual Loops").longValue());
    }

}
