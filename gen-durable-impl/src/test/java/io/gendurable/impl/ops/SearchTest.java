package io.gendurable.impl.ops;

import io.gendurable.DurableOperations;
import io.gendurable.InstancePage;
import io.gendurable.InstanceQuery;
import io.gendurable.InstanceQuery.Order;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Status;
import io.gendurable.impl.support.OwnSchema;
import io.gendurable.testing.DurableTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code DurableOperations.search} against a fixture of rows in every status, written with
 * seeded random attributes: for each filter, every page in both orders, compared with what the
 * fixture says should match (computed here in Java from the same attributes, not read back).
 */
class SearchTest {
    static final Instant BASE = Instant.parse("2030-01-01T00:00:00Z");
    static final int ROWS = 240;

    /** One fixture row as written. */
    record Row(long id, String fsm, int version, Status status, String queue, String step, String correlationKey,
               String concurrencyKey, Long parentId, Instant insertedAt, Instant updatedAt, String lastError) {
    }

    DurableTesting t;
    DurableOperations ops;
    List<Row> rows;

    @RegisterExtension
    final OwnSchema own = OwnSchema.perTest("ops_search");

    @BeforeEach
    void up() {
        t = DurableTesting.builder().dataSource(own.dataSource()).schema(own.schema()).build();
        ops = t.operations();
        rows = load(ROWS, 42);
    }

    @AfterEach
    void down() {
        t.close();
    }

    /** Writes {@code n} rows with seeded attributes; inserted_at is NOT in id order. */
    List<Row> load(int n, long seed) {
        Random r = new Random(seed);
        String[] fsms = {"checkout", "refund", "mail"};
        String[] queues = {"default", "payments", "mail"};
        String[] steps = {"start", "charge", "ship"};
        List<Row> out = new ArrayList<>();
        StringBuilder b = new StringBuilder();
        long firstId = 1;
        for (int i = 0; i < n; i++) {
            long id = firstId + i;
            Status status = Status.values()[r.nextInt(Status.values().length)];
            String ck = switch (r.nextInt(4)) {
                case 0 -> null;
                case 1 -> "order:" + i;    // unique: live rows hold their keys
                case 2 -> "order_" + i;    // '_' is a LIKE wildcard: must not match "order:" prefixes
                default -> "user:" + i;
            };
            String cc = r.nextInt(3) == 0 ? "acct:" + r.nextInt(5) : null;
            Long parent = i > 10 && r.nextInt(5) == 0 ? (long) (1 + r.nextInt(5)) : null;
            Instant ins = BASE.plusSeconds(60L * ((i * 37) % n));
            Instant upd = ins.plusSeconds(r.nextInt(100_000));
            String err = r.nextInt(4) == 0 ? (r.nextBoolean() ? "Timeout talking to PSP 100%_sure #" + i : "boom " + i) : null;
            Row row = new Row(id, fsms[r.nextInt(3)], 1 + r.nextInt(2), status, queues[r.nextInt(3)], steps[r.nextInt(3)],
                    ck, cc, parent, ins, upd, err);
            out.add(row);
            b.append("INSERT INTO gen_durable (id, fsm, fsm_version, step, status, queue, correlation_key, correlation_scope, "
                    + "concurrency_key, parent_id, inserted_at, updated_at, last_error, locked_by, lease_expires_at, "
                    + "claim_token, awaits, concurrency_shard) VALUES (")
                    .append(id).append(", ").append(q(row.fsm())).append(", ").append(row.version()).append(", ")
                    .append(q(row.step())).append(", '").append(status.dbName()).append("', ").append(q(row.queue()))
                    .append(", ").append(q(ck)).append(", ").append(ck == null ? "NULL" : "'{runnable,executing,awaiting_signal,awaiting_children}'")
                    .append(", ").append(q(cc)).append(", ").append(parent == null ? "NULL" : parent.toString())
                    .append(", '").append(ins).append("', '").append(upd).append("', ").append(q(err));
            if (status == Status.EXECUTING) {
                b.append(", 'node:q@x', '").append(upd.plusSeconds(60)).append("', ").append(id);
            } else {
                b.append(", NULL, NULL, NULL");
            }
            b.append(status == Status.AWAITING_SIGNAL ? ", ARRAY['go']" : ", NULL");
            // executing rows of one key: as if gated (a shard), out of the K = 1 arbiter
            b.append(status == Status.EXECUTING ? ", 0" : ", NULL").append(");\n");
        }
        // ids given explicitly: move the identity past them, as the engine's inserts would
        b.append("SELECT setval(pg_get_serial_sequence('gen_durable', 'id'), ").append(firstId + n).append(");\n");
        b.append("ANALYZE gen_durable;");
        own.sql(b.toString());
        return out;
    }

    static String q(String s) {
        return s == null ? "NULL" : "'" + s.replace("'", "''") + "'";
    }

    /** Pages through the whole result. */
    List<Long> all(InstanceQuery q) {
        List<Long> ids = new ArrayList<>();
        InstanceQuery next = q;
        for (int pages = 0; pages < 1000; pages++) {
            InstancePage page = ops.search(next);
            assertThat(page.items().size()).isLessThanOrEqualTo(q.pageSize());
            page.items().forEach(s -> ids.add(s.id()));
            if (!page.hasNext()) {
                return ids;
            }
            assertThat(page.items()).as("a page with a next cursor is full").hasSize(q.pageSize());
            next = q.after(page.nextCursor());
        }
        throw new AssertionError("more than 1000 pages");
    }

    void check(String what, UnaryOperator<InstanceQuery.Builder> filter, Predicate<Row> expected) {
        List<Long> want = rows.stream().filter(expected).map(Row::id).sorted().toList();
        for (Order order : Order.values()) {
            for (int size : new int[]{7, 1000}) {
                List<Long> got = all(filter.apply(InstanceQuery.builder()).order(order).pageSize(size).build());
                List<Long> expect = new ArrayList<>(want);
                if (order == Order.NEWEST_FIRST) {
                    java.util.Collections.reverse(expect);
                }
                assertThat(got).as(what + " " + order + " pages of " + size).containsExactlyElementsOf(expect);
            }
        }
        if (!what.equals("no filter")) {
            assertThat(want).as(what + ": the fixture has matches and non-matches").isNotEmpty().hasSizeLessThan(rows.size());
        }
    }

    @Test
    void every_filter_alone_pages_exactly_the_matching_rows_in_both_orders() {
        Instant mid = BASE.plusSeconds(60L * ROWS / 2);
        check("no filter", b -> b, r -> true);
        check("fsm", b -> b.fsm("refund"), r -> r.fsm().equals("refund"));
        check("fsm and version", b -> b.fsm("refund", 2), r -> r.fsm().equals("refund") && r.version() == 2);
        check("one status", b -> b.status(Status.FAILED), r -> r.status() == Status.FAILED);
        check("executing only", b -> b.status(Status.EXECUTING), r -> r.status() == Status.EXECUTING);
        check("statuses with executing", b -> b.status(Status.EXECUTING, Status.RUNNABLE, Status.DONE),
                r -> Set.of(Status.EXECUTING, Status.RUNNABLE, Status.DONE).contains(r.status()));
        check("queue", b -> b.queue("payments"), r -> r.queue().equals("payments"));
        check("step", b -> b.step("charge"), r -> r.step().equals("charge"));
        String key = rows.stream().map(Row::correlationKey).filter(k -> k != null && k.startsWith("order:")).skip(3)
                .findFirst().orElseThrow();
        check("correlation key", b -> b.correlationKey(key), r -> key.equals(r.correlationKey()));
        check("correlation prefix", b -> b.correlationKeyPrefix("order:"),
                r -> r.correlationKey() != null && r.correlationKey().startsWith("order:"));
        check("correlation prefix with a LIKE wildcard", b -> b.correlationKeyPrefix("order_1"),
                r -> r.correlationKey() != null && r.correlationKey().startsWith("order_1"));
        check("concurrency key", b -> b.concurrencyKey("acct:3"), r -> "acct:3".equals(r.concurrencyKey()));
        check("parent", b -> b.parentId(2), r -> Long.valueOf(2).equals(r.parentId()));
        check("inserted from", b -> b.inserted(mid, null), r -> !r.insertedAt().isBefore(mid));
        check("inserted to", b -> b.inserted(null, mid), r -> r.insertedAt().isBefore(mid));
        check("inserted range", b -> b.inserted(BASE.plusSeconds(600), mid),
                r -> !r.insertedAt().isBefore(BASE.plusSeconds(600)) && r.insertedAt().isBefore(mid));
        check("updated range", b -> b.updated(mid, mid.plus(Duration.ofHours(10))),
                r -> !r.updatedAt().isBefore(mid) && r.updatedAt().isBefore(mid.plus(Duration.ofHours(10))));
        check("error text, any case", b -> b.errorContains("TIMEOUT talking"),
                r -> r.lastError() != null && r.lastError().toLowerCase().contains("timeout talking"));
        check("error text with LIKE wildcards taken literally", b -> b.errorContains("100%_sure"),
                r -> r.lastError() != null && r.lastError().contains("100%_sure"));
        assertThat(all(InstanceQuery.builder().errorContains("0%x").build())).isEmpty();
    }

    @Test
    void filters_combine_with_and() {
        check("fsm, queue and statuses", b -> b.fsm("checkout").queue("default").status(Status.DONE, Status.EXECUTING),
                r -> r.fsm().equals("checkout") && r.queue().equals("default")
                        && (r.status() == Status.DONE || r.status() == Status.EXECUTING));
        check("prefix, step and error", b -> b.correlationKeyPrefix("user:").step("ship").errorContains("boom"),
                r -> r.correlationKey() != null && r.correlationKey().startsWith("user:") && r.step().equals("ship")
                        && r.lastError() != null && r.lastError().contains("boom"));
    }

    @Test
    void a_page_walk_neither_repeats_nor_skips_rows_while_rows_change_between_pages() {
        InstanceQuery q = InstanceQuery.builder().pageSize(10).build();
        InstancePage first = ops.search(q);
        List<Long> seen = new ArrayList<>(first.items().stream().map(InstanceSnapshot::id).toList());
        long lastOfFirst = seen.get(seen.size() - 1);
        // between pages: rows already seen and rows not yet seen flip in and out of executing,
        // finish, are deleted; new rows arrive (with higher ids: newest first never sees them)
        own.sql("UPDATE gen_durable SET status = 'executing', locked_by = 'n:q@y', lease_expires_at = now(), claim_token = id, concurrency_shard = 0 "
                + "WHERE status <> 'executing' AND id % 3 = 0;"
                + "UPDATE gen_durable SET status = 'done', locked_by = NULL, lease_expires_at = NULL, claim_token = NULL, concurrency_shard = NULL "
                + "WHERE status = 'executing' AND id % 3 = 1;"
                + "DELETE FROM gen_durable WHERE id IN (" + (lastOfFirst - 5) + ", " + (lastOfFirst - 6) + ");"
                + "INSERT INTO gen_durable (fsm, step) SELECT 'late', 'start' FROM generate_series(1, 25);");
        InstanceQuery next = q.after(first.nextCursor());
        while (true) {
            InstancePage p = ops.search(next);
            p.items().forEach(s -> seen.add(s.id()));
            if (!p.hasNext()) {
                break;
            }
            next = q.after(p.nextCursor());
        }
        assertThat(new HashSet<>(seen)).as("no duplicates").hasSameSizeAs(seen);
        assertThat(seen).as("strictly newest first").isSortedAccordingTo(Comparator.reverseOrder());
        List<Long> expected = new ArrayList<>(rows.stream().map(Row::id).sorted(Comparator.reverseOrder()).toList());
        expected.removeAll(List.of(lastOfFirst - 5, lastOfFirst - 6));
        assertThat(seen).as("every original row that still exists, once").containsExactlyElementsOf(expected);
    }

    @Test
    void oldest_first_paging_sees_rows_inserted_during_the_walk_at_its_end() {
        InstanceQuery q = InstanceQuery.builder().order(Order.OLDEST_FIRST).pageSize(100).build();
        InstancePage first = ops.search(q);
        own.sql("INSERT INTO gen_durable (fsm, step) SELECT 'late', 'start' FROM generate_series(1, 3);");
        List<Long> rest = all(q.after(first.nextCursor()));
        assertThat(rest).hasSize(ROWS - 100 + 3);
        assertThat(rest.subList(rest.size() - 3, rest.size())).allMatch(id -> id > ROWS);
    }

    @Test
    void a_status_filter_page_walk_loses_nothing_to_rows_that_leave_and_enter_executing() {
        // the executing rows are read by a second statement: one snapshot covers both
        InstanceQuery q = InstanceQuery.builder().status(Status.RUNNABLE, Status.EXECUTING).pageSize(5).build();
        List<Long> want = rows.stream().filter(r -> r.status() == Status.RUNNABLE || r.status() == Status.EXECUTING)
                .map(Row::id).sorted(Comparator.reverseOrder()).toList();
        List<Long> got = new ArrayList<>();
        InstanceQuery next = q;
        boolean flip = false;
        while (true) {
            InstancePage p = ops.search(next);
            p.items().forEach(s -> got.add(s.id()));
            flip = !flip;
            own.sql(flip ? "UPDATE gen_durable SET status = 'executing', locked_by = 'n:q@y', lease_expires_at = now(), claim_token = id, concurrency_shard = 0 WHERE status = 'runnable'"
                    : "UPDATE gen_durable SET status = 'runnable', locked_by = NULL, lease_expires_at = NULL, claim_token = NULL, concurrency_shard = NULL WHERE status = 'executing'");
            if (!p.hasNext()) {
                break;
            }
            next = q.after(p.nextCursor());
        }
        assertThat(got).containsExactlyElementsOf(want);
    }

    @Test
    void a_page_holds_snapshots_as_find_reads_them() {
        InstancePage page = ops.search(InstanceQuery.builder().pageSize(3).build());
        for (InstanceSnapshot s : page.items()) {
            assertThat(s).isEqualTo(t.durable().find(s.id()).orElseThrow());
        }
    }

    @Test
    void bad_cursors_are_refused_naming_the_field() {
        InstancePage newest = ops.search(InstanceQuery.builder().pageSize(5).build());
        InstanceQuery oldest = InstanceQuery.builder().order(Order.OLDEST_FIRST).pageSize(5).build();
        assertThatThrownBy(() -> ops.search(oldest.after(newest.nextCursor())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cursor was issued for order NEWEST_FIRST");
        for (String bad : List.of("nope", "djE6WDox", "djE6TjphYmM", "djE6TjotNQ", "%%%")) {
            assertThatThrownBy(() -> ops.search(oldest.after(bad)))
                    .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cursor is not a nextCursor");
        }
        assertThatThrownBy(() -> ops.search(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("query");
    }
}
