package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.DurableOperations;
import io.gendurable.InstancePage;
import io.gendurable.InstanceQuery;
import io.gendurable.InstanceQuery.Order;
import io.gendurable.Status;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;

/**
 * The operations API's search on a large table: writes {@code --search-rows} (1,000,000) instance
 * rows in one SQL statement (skewed: most rows done in one FSM and queue; rare FSMs and queues
 * whose rows are all old; children of 100 parents; keys; errors on the failed rows), analyzes,
 * then times {@code --search-samples} first pages of 50 per filter (each sample with another
 * value where the filter has several) and one walk of 5 pages, through
 * {@code DurableOperations.search}. See docs/performance.md.
 */
final class SearchScenario implements Scenario.Body {
    static final Instant BASE = Instant.parse("2030-01-01T00:00:00Z");

    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        int rows = o.searchRows;
        line.put("params", Map.of("rows", rows, "samples", o.searchSamples, "page_size", 50));
        Map<String, Object> results = new LinkedHashMap<>();
        try (Schema schema = Schema.fresh(db, o, "search"); HikariDataSource ds = db.pool("bench-search", 4);
             Node node = Node.loader(ds, Engines.client(o, schema.name()))) {
            long t0 = System.nanoTime();
            BenchDb.exec(ds, load(schema.name(), rows));
            BenchDb.exec(ds, "VACUUM ANALYZE " + schema.instances());
            results.put("load_s", (System.nanoTime() - t0) / 1e9);
            DurableOperations ops = node.engine.operations();
            Random r = new Random(7);
            Instant end = BASE.plusSeconds(rows);
            Map<String, IntFunction<InstanceQuery.Builder>> cases = new LinkedHashMap<>();
            cases.put("none", i -> b());
            cases.put("none_oldest_first", i -> b().order(Order.OLDEST_FIRST));
            cases.put("fsm_common", i -> b().fsm("bulk"));
            cases.put("fsm_mid", i -> b().fsm(fsm(r)));
            cases.put("fsm_rare_old", i -> b().fsm("rare"));
            cases.put("fsm_version", i -> b().fsm(fsm(r), 2));
            cases.put("fsm_step", i -> b().fsm(fsm(r)).step("charge"));
            cases.put("status_failed", i -> b().status(Status.FAILED));
            cases.put("status_runnable", i -> b().status(Status.RUNNABLE));
            cases.put("status_awaiting_children", i -> b().status(Status.AWAITING_CHILDREN));
            // done: 85 % of the rows, none among the newest 10 % (runnable), as on a live table
            cases.put("status_done", i -> b().status(Status.DONE));
            cases.put("status_executing", i -> b().status(Status.EXECUTING));
            cases.put("statuses_failed_or_awaiting", i -> b().status(Status.FAILED, Status.AWAITING_SIGNAL));
            cases.put("queue_common", i -> b().queue("payments"));
            cases.put("queue_rare_old", i -> b().queue("reports"));
            cases.put("step_alone", i -> b().step("charge"));
            cases.put("correlation_key", i -> b().correlationKey("order:" + (2 * r.nextInt(rows / 2) + 2)));
            cases.put("correlation_prefix_narrow", i -> b().correlationKeyPrefix("order:" + (2 * r.nextInt(rows / 20) + 2)));
            cases.put("correlation_prefix_wide", i -> b().correlationKeyPrefix("order:"));
            cases.put("concurrency_key", i -> b().concurrencyKey("acct:" + r.nextInt(1000)));
            cases.put("parent", i -> b().parentId(1 + r.nextInt(100)));
            cases.put("inserted_last_hour", i -> b().inserted(end.minus(Duration.ofHours(1)), null));
            cases.put("inserted_old_hour", i -> window(r, rows, true));
            cases.put("inserted_before_old", i -> b().inserted(null, BASE.plusSeconds(rows / 10)));
            cases.put("updated_old_hour", i -> window(r, rows, false));
            // with a status, the GC's index of that status holds the rows by updated_at
            cases.put("updated_old_hour_failed", i -> window(r, rows, false).status(Status.FAILED));
            cases.put("updated_old_hour_done", i -> window(r, rows, false).status(Status.DONE));
            cases.put("error_text", i -> b().errorContains("psp " + r.nextInt(3) + " "));
            cases.put("error_text_no_match", i -> b().errorContains("no such error"));
            // matches no row: the mid FSMs have no failed row, nor has queue payments (kept as measured before)
            cases.put("fsm_status_queue", i -> b().fsm(fsm(r)).status(Status.FAILED).queue("payments"));
            // 1.7 % of the rows
            cases.put("fsm_status_queue_matching", i -> b().fsm("bulk").status(Status.FAILED).queue("default"));
            Map<String, Object> figures = new LinkedHashMap<>();
            for (var c : cases.entrySet()) {
                // one unmeasured run per case: the connection's first use of that text
                ops.search(c.getValue().apply(0).build());
                long[] first = new long[o.searchSamples];
                int items = 0;
                for (int i = 0; i < first.length; i++) {
                    InstanceQuery q = c.getValue().apply(i).build();
                    long s = System.nanoTime();
                    InstancePage p = ops.search(q);
                    first[i] = System.nanoTime() - s;
                    items += p.items().size();
                }
                InstanceQuery q = c.getValue().apply(0).build();
                long s = System.nanoTime();
                InstancePage p = ops.search(q);
                int pages = 1;
                while (p.hasNext() && pages < 5) {
                    p = ops.search(q.after(p.nextCursor()));
                    pages++;
                }
                Map<String, Object> f = new LinkedHashMap<>(Percentiles.ms(first));
                f.put("mean_items", (double) items / first.length);
                f.put("walk_5_pages_ms", (System.nanoTime() - s) / 1e6);
                figures.put(c.getKey(), f);
                Bench.log(String.format("search %-28s p50 %7.2f ms  p99 %7.2f ms  items %.1f", c.getKey(),
                        (double) f.get("p50"), (double) f.get("p99"), (double) items / first.length));
            }
            results.put("first_page_ms", figures);
            long s = System.nanoTime();
            int n = 5;
            for (int i = 0; i < n; i++) {
                ops.summary();
            }
            results.put("summary_ms", (System.nanoTime() - s) / 1e6 / n);
            s = System.nanoTime();
            for (int i = 0; i < 50; i++) {
                ops.inspect(1 + r.nextInt(100)).orElseThrow();
            }
            results.put("inspect_parent_ms", (System.nanoTime() - s) / 1e6 / 50);
        }
        line.put("results", results);
        line.put("complete", true);
    }

    /** @return one of the mid-sized FSMs: 'f' || (i % 30) exists for i % 10 in 7..9 */
    private static String fsm(Random r) {
        return "f" + (10 * r.nextInt(3) + 7 + r.nextInt(3));
    }

    private static InstanceQuery.Builder b() {
        return InstanceQuery.builder();
    }

    private static InstanceQuery.Builder window(Random r, int rows, boolean inserted) {
        Instant from = BASE.plusSeconds(r.nextInt(rows / 2));
        return inserted ? b().inserted(from, from.plus(Duration.ofHours(1))) : b().updated(from, from.plus(Duration.ofHours(1)));
    }

    /**
     * One row per second of inserted_at from {@link #BASE}, ids in the same order. Rare FSM
     * 'rare' and queue 'reports': 200 rows each, among the oldest 10,000.
     */
    static String load(String schema, int rows) {
        return """
                SET search_path TO %1$s;
                INSERT INTO gen_durable (id, fsm, fsm_version, step, status, queue, correlation_key, correlation_scope,
                    concurrency_key, parent_id, children_pending, inserted_at, updated_at, last_error, locked_by,
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
                       CASE WHEN i > 100 AND i %% 10 = 3 AND i <= 1000100 THEN 1 + (i / 10) %% 100 END,
                       0,
                       '2030-01-01T00:00:00Z'::timestamptz + i * interval '1 second',
                       '2030-01-01T00:00:00Z'::timestamptz + i * interval '1 second' + (i::bigint * 7919 %% 3600) * interval '1 second',
                       CASE WHEN st = 'failed' THEN 'Timeout talking to PSP ' || (i %% 50) || ' after 30 s'
                            WHEN i %% 97 = 0 THEN 'retried: connection reset' END,
                       CASE WHEN st = 'executing' THEN 'node:default@bench' END,
                       CASE WHEN st = 'executing' THEN now() + interval '1 hour' END,
                       CASE WHEN st = 'executing' THEN i END,
                       CASE WHEN st = 'executing' AND i %% 5 = 0 THEN 0 END,
                       CASE WHEN st = 'awaiting_signal' THEN ARRAY['go'] END,
                       '{"n": 1}'::jsonb
                FROM (SELECT i, CASE WHEN i <= 100 THEN 'awaiting_children'
                                     WHEN i %% 1000 = 7 THEN 'executing'
                                     WHEN i %% 100 < 3 THEN 'failed'
                                     WHEN i %% 100 < 5 THEN 'awaiting_signal'
                                     WHEN i > %2$d - %2$d / 10 OR i %% 100 < 10 THEN 'runnable'
                                     ELSE 'done' END::durable_status AS st
                      FROM generate_series(1, %2$d) i) g;
                SELECT setval(pg_get_serial_sequence('gen_durable', 'id'), %2$d + 1);
                RESET search_path;
                """.formatted(schema, rows).replace("%%", "%");
    }
}
