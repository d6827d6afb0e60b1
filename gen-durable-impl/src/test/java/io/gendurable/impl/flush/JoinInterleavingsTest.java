package io.gendurable.impl.flush;

import io.gendurable.Status;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.insert.InsertSql;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Adversarial review of the fan-out generations (issue 41, V12): interleavings forced with the
 * engine's own statements on a fixed clock (no engine loop runs), each checking that a parent
 * joins exactly when the last child of its current fan-out ends, each child counting once.
 * These passed on main when written (the invariants held); they pin the interleavings tried.
 */
@EngineTest
class JoinInterleavingsTest {
    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    private static final String W = "adv:default@1";
    private static final String LIVE = InsertSql.scopeLiteral(List.of("runnable", "executing", "awaiting_signal", "awaiting_children"));

    private EngineHarness h;
    private Engine engine;
    private FlushSql flushSql;

    private void up(EngineHarness h) {
        this.h = h;
        h.start("adv", c -> c.queues(Map.of())).stop();  // migrates the schema
        engine = h.build("adv-ops", c -> c.queues(Map.of()), () -> NOW);
        flushSql = FlushSql.in(new Statements(new SchemaName(h.schema())));
    }

    private long row(String status, Long parent, Integer parentFanOut, int fanOut, int pending) {
        return h.queryLong("INSERT INTO gen_durable (fsm, step, state, status, eligible_at, parent_id, parent_fan_out, fan_out, children_pending) "
                + "VALUES ('adv', 'a', '{}', '" + status + "', '" + NOW.minusSeconds(60) + "', " + parent + ", " + parentFanOut
                + ", " + fanOut + ", " + pending + ") RETURNING id");
    }

    /** @return a claim of row id (executing now, a fresh token) */
    private Transition.Claim claim(long id) {
        h.claimedBy(id, W, "1 hour");
        return new Transition.Claim(id, W, h.queryLong("SELECT claim_token FROM gen_durable WHERE id = " + id));
    }

    private static Transition done(Transition.Claim c, Long parent) {
        return new Transition.Finish(c, Status.DONE, "{}", null, parent, null);
    }

    private static InsertSql.Row kid(long parent, String key) {
        return new InsertSql.Row("adv", 1, "a", "{}", "default", 0, NOW.plusSeconds(3600), key, key == null ? null : LIVE,
                null, null, 1, parent, null, null);
    }

    private static Transition fanOut(Transition.Claim c, InsertSql.Row... kids) {
        return new Transition.FanOut(c, "joined", "{}", List.of(), List.of(kids), null, null);
    }

    private String status(long id) {
        return h.queryString("SELECT status::text FROM gen_durable WHERE id = " + id);
    }

    private long pending(long id) {
        return h.queryLong("SELECT children_pending FROM gen_durable WHERE id = " + id);
    }

    private FlushSql.Flushed flush(Transition... batch) throws SQLException {
        return tx(c -> flushSql.flush(c, List.of(batch), NOW));
    }

    /** A retried parent's new fan-out and its old round's last child's end, in one flush batch. */
    @Test
    void an_old_child_ending_in_the_batch_of_its_parents_new_fan_out_does_not_count_toward_it(EngineHarness h) throws SQLException {
        up(h);
        long p = row("runnable", null, null, 1, 0);
        long c = row("runnable", p, 1, 0, 0);
        Transition.Claim cp = claim(p);
        Transition.Claim cc = claim(c);
        FlushSql.Flushed f = flush(fanOut(cp, kid(p, null), kid(p, null)), done(cc, p));
        assertThat(f.deferred()).isEmpty();
        assertThat(status(p)).isEqualTo("awaiting_children");
        assertThat(pending(p)).isEqualTo(2);
        assertThat(h.queryLong("SELECT fan_out FROM gen_durable WHERE id = " + p)).isEqualTo(2);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE parent_id = " + p + " AND parent_fan_out = 2")).isEqualTo(2);
    }

    /** A child (retried at its join step, so running while its own child runs) and its child end in one batch. */
    @Test
    void a_child_and_its_own_child_ending_in_one_batch_count_once_each_toward_their_own_parents(EngineHarness h) throws SQLException {
        up(h);
        long p = row("awaiting_children", null, null, 1, 2);
        long c1 = row("runnable", p, 1, 1, 0);
        long c2 = row("runnable", p, 1, 0, 0);
        long g = row("runnable", c1, 1, 0, 0);
        FlushSql.Flushed f = flush(done(claim(c1), p), done(claim(g), c1));
        assertThat(f.deferred()).isEmpty();
        assertThat(status(p)).isEqualTo("awaiting_children");
        assertThat(pending(p)).isEqualTo(1);
        assertThat(status(c1)).isEqualTo("done");
        flush(done(claim(c2), p));
        assertThat(status(p)).isEqualTo("runnable");
    }

    /** A child of an older version (no generation) and one of the current round, in one batch. */
    @Test
    void a_legacy_child_and_a_current_one_in_one_batch_neither_fail_it_nor_go_below_zero(EngineHarness h) throws SQLException {
        up(h);
        long p = row("awaiting_children", null, null, 1, 1);
        long legacy = row("runnable", p, null, 0, 0);
        long d = row("runnable", p, 1, 0, 0);
        FlushSql.Flushed f = flush(done(claim(legacy), p), done(claim(d), p));
        assertThat(f.committed()).hasSize(2);
        assertThat(status(p)).isEqualTo("runnable");
        assertThat(pending(p)).isZero();
    }

    /** Duplicate correlation keys among a fan-out's children: one lands, one is awaited, one is stamped. */
    @Test
    void duplicate_children_are_neither_awaited_nor_stamped(EngineHarness h) throws SQLException {
        up(h);
        long holder = row("runnable", null, null, 0, 0);
        h.exec("UPDATE gen_durable SET correlation_key = 'held', correlation_scope = '" + LIVE + "' WHERE id = " + holder);
        long p = row("runnable", null, null, 0, 0);
        flush(fanOut(claim(p), kid(p, "k"), kid(p, "k"), kid(p, "held")));
        assertThat(pending(p)).isEqualTo(1);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE parent_id = " + p + " AND parent_fan_out = 1")).isEqualTo(1);
        long k = h.queryLong("SELECT id FROM gen_durable WHERE parent_id = " + p);
        flush(done(claim(k), p));
        assertThat(status(p)).isEqualTo("runnable");
    }

    /** The late end of a cancelled child's first claim and its retry's end, in one batch. */
    @Test
    void a_cancelled_and_retried_childs_stale_end_and_its_retry_in_one_batch_count_once(EngineHarness h) throws SQLException {
        up(h);
        long p = row("awaiting_children", null, null, 1, 2);
        long c1 = row("runnable", p, 1, 0, 0);
        long c2 = row("runnable", p, 1, 0, 0);
        Transition.Claim first = claim(c1);
        h.exec("UPDATE gen_durable SET lease_expires_at = '" + NOW.minusSeconds(1) + "' WHERE id = " + c1);
        engine.operations().cancel(c1, "operator");  // lapsed lease: cancelled at once, counts
        assertThat(pending(p)).isEqualTo(1);
        engine.operations().retry(c1);
        Transition.Claim second = claim(c1);
        FlushSql.Flushed f = flush(done(first, p), done(second, p));
        assertThat(f.committed()).containsExactly(second);
        assertThat(status(p)).isEqualTo("awaiting_children");
        assertThat(pending(p)).isEqualTo(1);
        flush(done(claim(c2), p));
        assertThat(status(p)).isEqualTo("runnable");
    }

    /** The GC (or a purge) deleting the parent, uncommitted, while its child's end flushes. */
    @Test
    void a_childs_end_waits_for_a_parents_delete_in_flight_then_ends(EngineHarness h) throws Exception {
        up(h);
        long p = row("cancelled", null, null, 1, 1);
        long c = row("runnable", p, 1, 0, 0);
        Transition.Claim cc = claim(c);
        try (Connection gc = h.dataSource().getConnection()) {
            gc.setAutoCommit(false);
            try (var s = gc.createStatement()) {
                s.execute("DELETE FROM " + h.schema() + ".gen_durable WHERE id = " + p);
            }
            FlushSql.Flushed f = flush(done(cc, p));
            assertThat(f.deferred()).containsExactly(c);
            gc.commit();
        }
        FlushSql.Flushed f = flush(done(cc, p));
        assertThat(f.committed()).containsExactly(cc);
        assertThat(status(c)).isEqualTo("done");
    }

    /** A cancel of the whole tree waiting on the lock of a flush that ends the parent's last child. */
    @Test
    void a_cancel_with_descendants_behind_a_flush_ending_the_last_child_leaves_nothing_live(EngineHarness h) throws Exception {
        up(h);
        long p = row("awaiting_children", null, null, 1, 1);
        long c = row("runnable", p, 1, 0, 0);
        Transition.Claim cc = claim(c);
        List<Object> out = new ArrayList<>();
        try (Connection f = h.dataSource().getConnection()) {
            f.setAutoCommit(false);
            try (var s = f.createStatement()) {
                s.execute("SET LOCAL search_path TO " + h.schema());
            }
            flushSql.flush(f, List.of(done(cc, p)), NOW);
            Thread t = new Thread(() -> {
                try {
                    out.add(engine.operations().cancel(p, "operator", true));
                } catch (RuntimeException e) {
                    out.add(e);
                }
            });
            t.start();
            org.awaitility.Awaitility.await().until(() -> h.waitingOn(f, "FOR NO KEY UPDATE") > 0);
            f.commit();
            t.join(10_000);
        }
        assertThat(out).hasSize(1);
        assertThat(status(c)).isEqualTo("done");
        assertThat(status(p)).isEqualTo("cancelled");
    }

    private <T> T tx(EngineHarness.Work<T> work) throws SQLException {
        return h.inTransaction(work);
    }
}
