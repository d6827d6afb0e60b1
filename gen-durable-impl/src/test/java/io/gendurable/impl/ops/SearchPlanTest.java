package io.gendurable.impl.ops;

import static io.gendurable.impl.support.PlanNodes.collect;
import static io.gendurable.impl.support.PlanNodes.indexesOn;
import static io.gendurable.impl.support.PlanNodes.nodes;
import static io.gendurable.impl.support.PlanNodes.scans;
import static io.gendurable.impl.support.PlanNodes.seqScans;
import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.DurableOperations;
import io.gendurable.InstanceQuery;
import io.gendurable.InstanceQuery.Order;
import io.gendurable.Status;
import io.gendurable.impl.support.ExplainingDataSource;
import io.gendurable.impl.support.ExplainingDataSource.Explained;
import io.gendurable.testing.SharedTestDatabase;
import io.gendurable.testing.DurableTesting;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans of the statements {@code DurableOperations.search} really runs, for each filter
 * {@code InstanceQuery} offers, on a table big enough for the planner to care (200,000 instance
 * rows skewed as in the bench's {@code search} scenario, analyzed): the engine's DataSource is an
 * {@link ExplainingDataSource}, which explains each search statement on its own connection, in its
 * own transaction ({@code REPEATABLE READ}, {@code plan_cache_mode = force_custom_plan}), with its
 * own bound parameters, just before it runs ({@code EXPLAIN (ANALYZE)}: the search is read-only,
 * and the actual row counts show what a plan reads).
 *
 * <p>Every statement of every filter is checked for a sequential scan of {@code gen_durable}
 * (issue 15: none), and the settled rows' statement for the index it reads, for the absence of a
 * sort where the index holds the page in order, and for the rows it reads. Two kinds of filter
 * have no index of their own and walk the primary key in page order, filtering, until the page
 * is full: the current step alone, and the inserted/updated time ranges (schema version 3 keeps
 * no time index, to spare every insert and every outcome two index entries). For those the test
 * asserts what is true: a primary-key index scan under the LIMIT (no sort, no sequential scan),
 * and prints how many rows it read, which for a range far from the page's start is most of the
 * table: those cases are named "(WALK)" and bounded by the table's size only (gen-durable-bench/results/LOG.md,
 * "Operations search"). A status or a time range combined with a status may also walk for the
 * planner's want of knowing that ids and statuses go together (the newest rows are the runnable
 * ones): "status done" reads past the newest 10 % when it walks the primary key.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SearchPlanTest {
    /** 200,000; {@code -Dgendurable.search-plan.rows=1000000} for the bench's scale (about a minute more). */
    static final int ROWS = Integer.getInteger("gendurable.search-plan.rows", 200_000);
    static final Instant BASE = Instant.parse("2030-01-01T00:00:00Z");
    static final Instant END = BASE.plusSeconds(ROWS);

    static final String PKEY = "gen_durable_pkey";
    /** Walks the primary key, filtering: no index of its own. */
    static final Set<String> PK_WALK = Set.of(PKEY);

    HikariDataSource pool;
    ExplainingDataSource explaining;
    String schema;
    DurableTesting t;
    DurableOperations ops;
    final List<String> table = new ArrayList<>();

    @BeforeAll
    void load() {
        pool = SharedTestDatabase.dataSource(2);
        explaining = new ExplainingDataSource(pool,
                sql -> sql.strip().toLowerCase(Locale.ROOT).startsWith("select") && sql.contains("gen_durable"),
                "ANALYZE, TIMING OFF, FORMAT JSON");
        schema = SharedTestDatabase.newSchema("ops_plans");
        t = DurableTesting.builder().dataSource(explaining).schema(schema).dropSchemaOnClose(true).build();
        ops = t.operations();
        long t0 = System.nanoTime();
        SharedTestDatabase.exec(pool, load(schema, ROWS));
        long t1 = System.nanoTime();
        SharedTestDatabase.exec(pool, "VACUUM " + schema + ".gen_durable");
        analyzeEveryRow(pool, schema + ".gen_durable", ROWS);
        System.out.printf("search plans: %,d rows loaded in %.1f s, vacuumed and analyzed in %.1f s%n", ROWS,
                (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9);
    }

    /**
     * ANALYZE samples 300 rows per unit of the statistics target: a sample of the whole table makes the
     * statistics, and so the plans asserted here, the same on every run (a sample of 30,000 of 200,000
     * rows once estimated "correlation prefix, 5 rows" high enough to walk the primary key instead).
     */
    static void analyzeEveryRow(DataSource ds, String table, int rows) {
        int target = Math.min(10_000, Math.max(100, (rows + 299) / 300 + 1));
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("SET LOCAL default_statistics_target = " + target);
            s.execute("ANALYZE " + table);
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("ANALYZE " + table, e);
        }
    }

    @AfterAll
    void down() {
        System.out.println("\nsearch plans on " + ROWS + " rows (settled rows' statement | executing rows' statement):");
        System.out.printf("%-42s | %-3s | %-70s | %9s | %s%n", "filter", "seq", "settled rows: plan", "rows read", "executing rows: plan");
        table.forEach(System.out::println);
        if (t != null) {
            t.close();
        }
        if (pool != null) {
            pool.close();
        }
    }

    /**
     * One filter: the query; the indexes the settled rows' statement may read (where the planner has
     * a reasonable choice, each of them); whether it may sort its matches (else the index delivers
     * them in page order); the most rows of the table its scan may read ({@link #ROWS}: a walk).
     */
    record Case(String name, Supplier<InstanceQuery.Builder> query, Set<String> indexes, boolean sorts, long maxRead) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> cases() {
        Instant oldHour = BASE.plusSeconds(ROWS / 4);
        Instant oldHourEnd = oldHour.plus(Duration.ofHours(1));
        return Stream.of(
                c("none, newest first", b(), PK_WALK, 60),
                c("none, oldest first", b().order(Order.OLDEST_FIRST), PK_WALK, 60),
                // 70 % of the rows: the FSM's index, or the primary key whose page comes after ~70 rows
                c("fsm, 70 % of the rows", b().fsm("bulk"), Set.of("gen_durable_ops_fsm", PKEY), 200),
                // The planner may prefer the primary key's walk whenever it expects the page within a few
                // thousand rows: it reads them in heap order, against 51 random heap reads through the index
                c("fsm, 1/30 of the rows", b().fsm("f17"), Set.of("gen_durable_ops_fsm", PKEY), 5_000),
                c("fsm, 200 old rows", b().fsm("rare"), Set.of("gen_durable_ops_fsm"), 60),
                c("fsm and version", b().fsm("f17", 2), Set.of("gen_durable_ops_fsm", PKEY), 10_000),
                c("fsm and step", b().fsm("f17").step("charge"), Set.of("gen_durable_ops_fsm", PKEY), 10_000),
                c("status runnable", b().status(Status.RUNNABLE), Set.of("gen_durable_ops_status", PKEY), 100),
                c("status failed", b().status(Status.FAILED), Set.of("gen_durable_ops_status", PKEY), 5_000),
                c("status awaiting_children", b().status(Status.AWAITING_CHILDREN), Set.of("gen_durable_ops_status"), 60),
                c("status awaiting_signal", b().status(Status.AWAITING_SIGNAL), Set.of("gen_durable_ops_status", PKEY), 5_000),
                // 80 % of the rows are done, but none of the newest 10 % (runnable, as on a live system): the
                // planner, assuming them spread evenly, may walk the primary key and read past all of those
                c("status done", b().status(Status.DONE), Set.of("gen_durable_ops_status", PKEY), ROWS / 10 + 100),
                c("status cancelled", b().status(Status.CANCELLED), Set.of("gen_durable_ops_status", PKEY), 10_000),
                // executing only: no settled statement at all (the executing one is checked for every case)
                c("status executing", b().status(Status.EXECUTING), Set.of(), 0),
                // two ranges of the status index (merged by a sort), or the primary key
                sorted("statuses failed or awaiting_signal", b().status(Status.FAILED, Status.AWAITING_SIGNAL),
                        Set.of("gen_durable_ops_status", PKEY), 5_000),
                // 15 %: the queue's index, or the primary key whose page comes after ~340 rows
                c("queue, 15 % of the rows", b().queue("payments"), Set.of("gen_durable_ops_queue", PKEY), 1_000),
                c("queue, 200 old rows", b().queue("reports"), Set.of("gen_durable_ops_queue"), 60),
                // no index of its own; a quarter of the rows: the page comes after ~200 rows of the primary key
                c("step alone", b().step("charge"), PK_WALK, 1_000),
                c("correlation key, exact", b().correlationKey("order:123456"), Set.of("gen_durable_ops_correlation"), 60),
                // the index holds a prefix's keys in key order: the few matches are sorted by id
                sorted("correlation prefix, 5 rows", b().correlationKeyPrefix("order:12345"),
                        Set.of("gen_durable_ops_correlation"), 60),
                // half the rows have a key: the prefix's range, or the primary key whose page comes after ~100 rows
                c("correlation prefix, half the table", b().correlationKeyPrefix("order:"),
                        Set.of("gen_durable_ops_correlation", PKEY), 500),
                c("concurrency key", b().concurrencyKey("acct:40"), Set.of("gen_durable_ops_concurrency"), 60),
                // gen_durable_parent is on parent_id alone (V1): its children (one row in 1,000, 200 here) sorted
                // by id; or, with more of them (1,000 on 1,000,000 rows), the primary key's walk past ~51,000 rows
                sorted("parent id (one row in 1,000)", b().parentId(42), Set.of("gen_durable_parent", PKEY), 60_000),
                // No time index (V3 keeps none): the primary key from the page's end of the table, filtered.
                // A recent range is at hand; a range far from that end WALKS the table up to it (ROWS: no bound).
                c("inserted, last hour", b().inserted(END.minus(Duration.ofHours(1)), null), PK_WALK, 60),
                c("inserted, an old hour (WALK)", b().inserted(oldHour, oldHourEnd), PK_WALK, ROWS),
                c("inserted before the oldest 10 % (WALK)", b().inserted(null, BASE.plusSeconds(ROWS / 10)), PK_WALK, ROWS),
                c("inserted, an old hour, oldest first (WALK)", b().inserted(oldHour, oldHourEnd).order(Order.OLDEST_FIRST),
                        PK_WALK, ROWS),
                c("updated, an old hour (WALK)", b().updated(oldHour, oldHourEnd), PK_WALK, ROWS),
                // With a status, the GC's index of that status (by updated_at: the window's rows, sorted), the
                // status index, or, when the planner expects the window's rows spread evenly, the walk.
                sorted("updated, an old hour, status failed", b().updated(oldHour, oldHourEnd).status(Status.FAILED),
                        Set.of("gen_durable_gc_failed", "gen_durable_ops_status", PKEY), ROWS),
                sorted("updated, an old hour, status done", b().updated(oldHour, oldHourEnd).status(Status.DONE),
                        Set.of("gen_durable_gc_done", "gen_durable_ops_status", PKEY), ROWS),
                // the rows with an error (4 %), their text checked on each until the page is full
                c("error text", b().errorContains("psp 1 "), Set.of("gen_durable_ops_error"), ROWS / 20),
                c("error text, no match", b().errorContains("no such error"), Set.of("gen_durable_ops_error"), ROWS / 20),
                // with status failed, also the GC's index of the failed rows (every one of them, then sorted)
                sorted("fsm, status and queue", b().fsm("bulk").status(Status.FAILED).queue("default"),
                        Set.of("gen_durable_ops_fsm", "gen_durable_ops_status", "gen_durable_ops_queue",
                                "gen_durable_gc_failed", PKEY), 10_000),
                sorted("error text and status failed", b().errorContains("psp 1 ").status(Status.FAILED),
                        Set.of("gen_durable_ops_error", "gen_durable_ops_status", "gen_durable_gc_failed", PKEY), ROWS / 20),
                sorted("fsm and correlation prefix", b().fsm("bulk").correlationKeyPrefix("order:1234"),
                        Set.of("gen_durable_ops_correlation", "gen_durable_ops_fsm"), 1_000));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void the_search_scans_the_instances_table_sequentially_for_no_filter(Case c) {
        InstanceQuery q = c.query().get().build();
        List<Explained> statements = explaining.record(() -> ops.search(q));
        Explained settled = statements.stream().filter(e -> e.sql().contains("<>'executing'")).findFirst().orElse(null);
        Explained executing = statements.stream().filter(e -> e.sql().contains("='executing'")).findFirst().orElse(null);
        // the printed row first, so that a failing case shows its plan too
        boolean seq = statements.stream().anyMatch(e -> seqScans(e.plan()).contains("gen_durable"));
        long read = settled == null ? 0 : rowsRead(settled.plan(), "gen_durable");
        table.add(String.format("%-42s | %-3s | %-70s | %,9d | %s", c.name(), seq ? "YES" : "no",
                settled == null ? "-" : shape(settled.plan()), read, executing == null ? "-" : shape(executing.plan())));

        assertThat(statements).as("one statement per part").hasSize(SearchQuery.parts(q).size());
        for (Explained e : statements) {
            assertThat(seqScans(e.plan())).as(c.name() + ": " + e.sql()).doesNotContain("gen_durable");
        }
        boolean executingPart = SearchQuery.parts(q).contains(SearchQuery.Part.EXECUTING);
        assertThat(executing != null).as("an executing rows' statement exactly when the statuses reach them").isEqualTo(executingPart);
        if (executing != null) {
            assertThat(indexesOn(executing.plan(), "gen_durable")).as("executing: " + executing.sql()).isNotEmpty();
        }
        if (c.indexes().isEmpty()) {
            assertThat(settled).as("status executing only: no settled statement").isNull();
            return;
        }
        assertThat(settled).isNotNull();
        List<String> used = indexesOn(settled.plan(), "gen_durable");
        assertThat(used).as(c.name() + ": the settled rows' indexes").isNotEmpty();
        assertThat(c.indexes()).as(c.name() + ": the settled rows' statement reads " + used).containsAll(used);
        JsonObject root = (JsonObject) settled.plan().get("Plan");
        assertThat(root.getString("Node Type")).as(c.name()).isEqualTo("Limit");
        if (!c.sorts()) {
            // The index delivers the matches in page order and the LIMIT stops the scan after the page.
            assertThat(nodeTypes(settled.plan())).as(c.name()).doesNotContain("Sort", "Incremental Sort");
        }
        if (c.indexes().equals(PK_WALK)) {
            // no index of its own: the primary key in page order, filtered on each row
            assertThat(scans(settled.plan(), "gen_durable")).as(c.name()).allSatisfy(n -> {
                assertThat(n.getString("Node Type")).isEqualTo("Index Scan");
                assertThat(n.getString("Index Name")).isEqualTo(PKEY);
            });
        }
        // how much of the table the page cost (ROWS: a walk, said so in the case)
        assertThat(read).as(c.name() + ": rows the settled rows' statement read").isLessThanOrEqualTo(c.maxRead());
    }

    private static Case c(String name, InstanceQuery.Builder b, Set<String> indexes, long maxRead) {
        return new Case(name, () -> b, indexes, false, maxRead);
    }

    /** A case whose index does not hold the matches in id order: they are sorted, as few as the filter selects. */
    private static Case sorted(String name, InstanceQuery.Builder b, Set<String> indexes, long maxRead) {
        return new Case(name, () -> b, indexes, true, maxRead);
    }

    private static InstanceQuery.Builder b() {
        return InstanceQuery.builder();
    }

    /**
     * The bench's {@code search} rows (SearchScenario.load), {@code rows} of them: one row per second
     * of inserted_at from {@link #BASE}, ids in the same order, updated up to an hour later; 70 % FSM
     * 'bulk', the rest 'f0'…'f29' and 200 rows of 'rare' among the oldest 10,000; 80 % queue
     * 'default', 'reports' as rare as 'rare'; 80 % done, 10 % runnable (and the newest 10 %), 3 %
     * failed with an error, 2 % awaiting_signal, 1 % cancelled, 0.1 % executing, the first 100
     * awaiting_children with 200 children each; half with a correlation key 'order:<id>', a fifth
     * with a concurrency key among 1,000.
     */
    static String load(String schema, int rows) {
        return """
                SET search_path TO %1$s;
                INSERT INTO gen_durable (id, fsm, fsm_version, step, status, queue, correlation_key, correlation_scope,
                    concurrency_key, parent_id, inserted_at, updated_at, last_error, locked_by,
                    lease_expires_at, claim_token, concurrency_shard, awaits, state)
                SELECT i,
                       CASE WHEN i <= 10000 AND i %% 50 = 0 THEN 'rare' WHEN i %% 10 < 7 THEN 'bulk' ELSE 'f' || (i %% 30) END,
                       1 + (i / 7) %% 2,
                       (ARRAY['start','charge','ship','end'])[1 + (i / 3) %% 4],
                       st,
                       CASE WHEN i <= 10000 AND i %% 50 = 25 THEN 'reports' WHEN i %% 20 < 16 THEN 'default'
                            WHEN i %% 20 < 19 THEN 'payments' ELSE 'mail' END,
                       CASE WHEN i %% 2 = 0 THEN 'order:' || i END,
                       CASE WHEN i %% 2 = 0 THEN '{runnable,executing,awaiting_signal,awaiting_children}'::durable_status[] END,
                       CASE WHEN i %% 5 = 0 THEN 'acct:' || (i %% 1000) END,
                       CASE WHEN i > 100 AND i %% 10 = 3 THEN 1 + (i / 10) %% 100 END,
                       '2030-01-01T00:00:00Z'::timestamptz + i * interval '1 second',
                       '2030-01-01T00:00:00Z'::timestamptz + i * interval '1 second' + (i::bigint * 7919 %% 3600) * interval '1 second',
                       CASE WHEN st = 'failed' THEN 'Timeout talking to PSP ' || (i %% 50) || ' after 30 s'
                            WHEN i %% 97 = 0 THEN 'retried: connection reset' END,
                       CASE WHEN st = 'executing' THEN 'node:default@plans' END,
                       CASE WHEN st = 'executing' THEN now() + interval '1 hour' END,
                       CASE WHEN st = 'executing' THEN i END,
                       CASE WHEN st = 'executing' AND i %% 5 = 0 THEN 0 END,
                       CASE WHEN st = 'awaiting_signal' THEN ARRAY['go'] END,
                       '{"n": 1}'::jsonb
                FROM (SELECT i, CASE WHEN i <= 100 THEN 'awaiting_children'
                                     WHEN i %% 1000 = 7 THEN 'executing'
                                     WHEN i %% 100 < 3 THEN 'failed'
                                     WHEN i %% 100 < 5 THEN 'awaiting_signal'
                                     WHEN i %% 100 = 5 THEN 'cancelled'
                                     WHEN i > %2$d - %2$d / 10 OR i %% 100 < 10 THEN 'runnable'
                                     ELSE 'done' END::durable_status AS st
                      FROM generate_series(1, %2$d) i) g;
                SELECT setval(pg_get_serial_sequence('gen_durable', 'id'), %2$d + 1);
                RESET search_path;
                """.formatted(schema, rows).replace("%%", "%");
    }


    /** The plan as one line: each node's type, with the index or relation it reads, outermost first. */
    private static String shape(JsonObject plan) {
        List<String> parts = new ArrayList<>();
        for (JsonObject n : nodes(plan)) {
            String what = n.getString("Index Name", n.getString("Relation Name", null));
            parts.add(n.getString("Node Type") + (n.containsKey("Scan Direction") && n.getString("Scan Direction").equals("Backward")
                    ? " Backward" : "") + (what == null ? "" : " " + what));
        }
        return String.join(" > ", parts);
    }

    private static List<String> nodeTypes(JsonObject plan) {
        return nodes(plan).stream().map(n -> n.getString("Node Type")).toList();
    }


    /**
     * Rows the plan's scans of {@code relation} produced, the ones their filters removed included,
     * over all loops (for a bitmap scan, its heap scan's rows).
     */
    private static long rowsRead(JsonObject plan, String relation) {
        long read = 0;
        for (JsonObject n : nodes(plan)) {
            if (!relation.equals(n.getString("Relation Name", null))) {
                continue;
            }
            long rows = n.getJsonNumber("Actual Rows").longValue();
            for (String removed : List.of("Rows Removed by Filter", "Rows Removed by Index Recheck")) {
                if (n.containsKey(removed)) {
                    rows += n.getJsonNumber(removed).longValue();
                }
            }
            read += rows * Math.max(1, n.getJsonNumber("Actual Loops").longValue());
        }
        return read;
    }
}
