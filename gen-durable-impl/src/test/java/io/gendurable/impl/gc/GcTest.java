package io.gendurable.impl.gc;

import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Item;
import io.gendurable.impl.support.Fsms.Noop;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

@EngineTest
class GcTest {
    EngineHarness h;
    Engine e;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
        e = h.start("gc", c -> c.queues(Map.of())
                .gc(new EngineConfig.GcConfig(false, Duration.ofHours(1), Duration.ofDays(1), Duration.ofDays(1), 3)), new Noop());
    }

    private List<Long> insert(int n) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(e.insert(Noop.class, new Item(i)).id());
        }
        return ids;
    }

    private static String in(List<Long> ids) {
        return ids.toString().replace('[', '(').replace(']', ')');
    }

    @Test
    void step_history_is_swept_past_its_own_retention() {
        h.exec("INSERT INTO gen_durable_history (instance_id, step, attempt, outcome, started_at, finished_at, node) "
                + "SELECT i, 's', 1, 'next', now() - interval '9 days', now() - interval '8 days', 'n' FROM generate_series(1, 5) i");
        h.exec("INSERT INTO gen_durable_history (instance_id, step, attempt, outcome, started_at, finished_at, node) "
                + "VALUES (6, 's', 1, 'done', now() - interval '1 day', now() - interval '1 day', 'n')");

        assertThat(EngineInternals.gc(e).sweepHistory()).as("default retention: 7 days, batches of 3").isEqualTo(5);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable_history")).isEqualTo(1);
    }

    @Test
    void failed_and_cancelled_rows_are_kept_for_their_own_longer_retention() {
        Engine keeps = h.start("gc-failed", c -> c.queues(Map.of())
                .gc(new EngineConfig.GcConfig(false, Duration.ofHours(1), Duration.ofDays(1), Duration.ofDays(7), 100)), new Noop());
        assertThat(keeps.config().gc().failedRetention()).isEqualTo(Duration.ofDays(7));
        List<Long> ids = insert(6);
        h.exec("UPDATE gen_durable SET status = 'done', updated_at = now() - interval '2 days' WHERE id = " + ids.get(0));
        h.exec("UPDATE gen_durable SET status = 'failed', updated_at = now() - interval '2 days' WHERE id = " + ids.get(1));
        h.exec("UPDATE gen_durable SET status = 'cancelled', updated_at = now() - interval '2 days' WHERE id = " + ids.get(2));
        h.exec("UPDATE gen_durable SET status = 'failed', updated_at = now() - interval '8 days' WHERE id = " + ids.get(3));
        h.exec("UPDATE gen_durable SET status = 'cancelled', updated_at = now() - interval '8 days' WHERE id = " + ids.get(4));

        assertThat(EngineInternals.gc(keeps).runOnce()).isEqualTo(3);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id IN " + in(ids.subList(1, 3)))).as("kept a week").isEqualTo(2);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + ids.get(5))).as("live").isEqualTo(1);
    }

    @Test
    void terminal_rows_past_retention_are_deleted_in_full_batches_until_none_remain() {
        List<Long> old = insert(7);
        List<Long> recent = insert(2);
        List<Long> live = insert(2);
        h.exec("UPDATE gen_durable SET status = 'done', updated_at = now() - interval '2 days' WHERE id IN " + in(old.subList(0, 4)));
        h.exec("UPDATE gen_durable SET status = 'failed', updated_at = now() - interval '2 days' WHERE id IN " + in(old.subList(4, 7)));
        h.exec("UPDATE gen_durable SET status = 'done', updated_at = now() - interval '1 hour' WHERE id IN " + in(recent));
        h.exec("UPDATE gen_durable SET updated_at = now() - interval '9 days' WHERE id IN " + in(live));

        // batch = 3: 7 rows need three sweeps; one runOnce re-sweeps while batches come back full.
        assertThat(EngineInternals.gc(e).runOnce()).isEqualTo(7);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id IN " + in(old))).isZero();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id IN " + in(recent))).isEqualTo(2);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id IN " + in(live))).isEqualTo(2);
        assertThat(e.metrics().gcSwept.sum()).isEqualTo(7);
        assertThat(EngineInternals.gc(e).runOnce()).isZero();
    }

    @Test
    void a_terminal_child_of_a_parent_still_mid_join_is_spared_until_the_parent_finishes() {
        List<Long> ids = insert(3);
        long parent = ids.get(0);
        long child = ids.get(1);
        long orphan = ids.get(2);
        h.exec("UPDATE gen_durable SET status = 'awaiting_children', children_pending = 1 WHERE id = " + parent);
        h.exec("UPDATE gen_durable SET status = 'done', parent_id = " + parent
                + ", updated_at = now() - interval '2 days' WHERE id = " + child);
        h.exec("UPDATE gen_durable SET status = 'done', parent_id = 999999999, updated_at = now() - interval '2 days' WHERE id = " + orphan);

        assertThat(EngineInternals.gc(e).runOnce()).isEqualTo(1);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + child)).isEqualTo(1);

        h.exec("UPDATE gen_durable SET status = 'done', children_pending = 0, updated_at = now() WHERE id = " + parent);
        assertThat(EngineInternals.gc(e).runOnce()).as("a done parent is final: the child goes").isEqualTo(1);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + child)).isZero();
    }

    /**
     * Defect 2: the join completed, so the parent left {@code awaiting_children}; it is runnable
     * (its join step retrying with a backoff), parked on a signal, or running. Its children
     * finished more than the retention ago. The GC spared a child only while its parent was
     * {@code awaiting_children}, so it deleted them here and the parent's next step saw
     * {@code ctx.children()} without them. A child is spared while its parent's row exists.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "parent {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"runnable", "awaiting_signal"})
    void the_children_of_a_woken_parent_are_spared_until_it_finishes(String parentStatus) {
        List<Long> ids = insert(3);
        long parent = ids.get(0);
        List<Long> children = ids.subList(1, 3);
        h.exec("UPDATE gen_durable SET status = '" + parentStatus + "', children_pending = 0, attempt = 2, "
                + "awaits = ARRAY['go'], eligible_at = now() + interval '1 hour' WHERE id = " + parent);
        h.exec("UPDATE gen_durable SET status = 'done', parent_id = " + parent
                + ", updated_at = now() - interval '2 days' WHERE id IN " + in(children));

        assertThat(EngineInternals.gc(e).runOnce()).isZero();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id IN " + in(children))).isEqualTo(2);

        h.exec("UPDATE gen_durable SET status = 'failed', updated_at = now() - interval '2 days' WHERE id = " + parent);
        assertThat(EngineInternals.gc(e).runOnce()).as("the parent first").isEqualTo(1);
        assertThat(EngineInternals.gc(e).runOnce()).as("then its children").isEqualTo(2);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id IN " + in(children))).isZero();
    }

    /**
     * A failed parent's finished children live as long as the parent. P's join step failed
     * because C2 failed; C1 is done. P and C2 are kept for the failed-retention so an operator can
     * retry them; the GC spared a child only until its parent finished, so once P had failed C1
     * went after the (shorter) done-retention. The operator then retried C2 and P: P's join step
     * read only C2 and finished with C1's result silently gone. A child is now spared while its
     * parent's row exists (existence, not status: a parent retry committing between the GC's
     * select and its delete cannot make a spared child deletable), so every ancestor that can
     * still be retried finds its children; the child goes in a pass after its parent.
     */
    @Test
    void the_finished_children_of_a_failed_parent_live_as_long_as_the_parent() {
        Engine keeps = h.start("gc-tree", c -> c.queues(Map.of())
                .gc(new EngineConfig.GcConfig(false, Duration.ofHours(1), Duration.ofDays(1), Duration.ofDays(7), 100)), new Noop());
        List<Long> ids = insert(3);
        long parent = ids.get(0);
        long c1 = ids.get(1);
        long c2 = ids.get(2);
        h.exec("UPDATE gen_durable SET status = 'failed', updated_at = now() - interval '2 days' WHERE id = " + parent);
        h.exec("UPDATE gen_durable SET status = 'done', parent_id = " + parent
                + ", updated_at = now() - interval '2 days' WHERE id = " + c1);
        h.exec("UPDATE gen_durable SET status = 'failed', parent_id = " + parent
                + ", updated_at = now() - interval '2 days' WHERE id = " + c2);

        assertThat(EngineInternals.gc(keeps).runOnce()).as("within the failed-retention: nothing goes").isZero();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id IN " + in(ids))).isEqualTo(3);

        h.exec("UPDATE gen_durable SET updated_at = now() - interval '8 days' WHERE id = " + parent);
        assertThat(EngineInternals.gc(keeps).runOnce()).as("the parent first").isEqualTo(1);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + parent)).isZero();
        h.exec("UPDATE gen_durable SET updated_at = now() - interval '8 days' WHERE id = " + c2);
        assertThat(EngineInternals.gc(keeps).runOnce()).as("then its children").isEqualTo(2);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id IN " + in(ids))).isZero();
    }
}
