package io.gendurable.impl.flush;

import io.gendurable.InsertOptions;
import io.gendurable.impl.flush.ChildrenTest.Joined;
import io.gendurable.impl.flush.ChildrenTest.Kid;
import io.gendurable.impl.flush.ChildrenTest.Parent;
import io.gendurable.impl.flush.ChildrenTest.Plan;
import io.gendurable.impl.flush.ChildrenTest.Work;
import io.gendurable.impl.support.Kit;
import io.gendurable.impl.support.Probe;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.GenDurableTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fan-out and join rules, on the test kit: which children a parent waits for, that a failed
 * child counts, and nesting. Rows that must stay live go to the queue {@code parked}, which the
 * drains here leave alone. The fan-outs that need threads (across queues with no poll, two engines,
 * a GC run mid-join, ten thousand children) are {@link ChildrenTest}'s.
 */
@GenDurableTest
class ChildrenRulesTest {
    Parent parent;
    Probe db;

    @BeforeEach
    void up(DurableTesting t) {
        parent = new Parent();
        t.register(parent, new Kid());
        db = Kit.probe(t);
    }

    /** Drains the default queue and returns what the parent joined with. */
    private Joined joined(DurableTesting t, long id) {
        t.drain("default");
        return t.assertDone(id).as(Joined.class);
    }

    @Test
    void a_parent_waits_for_exactly_the_children_that_landed_after_correlation_dedup(DurableTesting t) {
        // A live holder of "k-taken" already exists (in a queue nobody drains, so it stays live).
        t.durable().insert(Kid.class, new Work(99, false, 0), InsertOptions.builder().queue("parked")
                .correlationKey("k-taken").build());
        long id = t.durable().insert(Parent.class, new Plan(5, List.of("k-a", "k-taken", "k-b", "k-a", "k-c"), false, 0,
                null)).id();
        Joined j = joined(t, id);
        assertThat(parent.joins.get(id).get()).isEqualTo(1);
        // Landed: k-a, k-b, k-c. The duplicate k-a and the taken key are not its children.
        assertThat(j.children()).isEqualTo(3);
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE parent_id = " + id)).isEqualTo(3);
    }

    @Test
    void a_parent_whose_children_all_collide_continues_without_parking(DurableTesting t) {
        t.durable().insert(Kid.class, new Work(1, false, 0), InsertOptions.builder().queue("parked").correlationKey("x")
                .build());
        long id = t.durable().insert(Parent.class, new Plan(2, List.of("x", "x"), false, 0, null)).id();
        Joined j = joined(t, id);
        assertThat(j.children()).isZero();
        assertThat(parent.joins.get(id).get()).isEqualTo(1);
        assertThat(t.drain("default").steps()).isEmpty();
    }

    @Test
    void a_failed_child_counts_toward_the_join_and_the_parent_sees_its_error(DurableTesting t) {
        long id = t.durable().insert(Parent.class, new Plan(4, null, true, 0, null)).id();
        Joined j = joined(t, id);
        assertThat(j.children()).isEqualTo(4);
        assertThat(j.failed()).isEqualTo(2);
        assertThat(j.done()).isEqualTo(2);
        assertThat(j.errors()).containsExactlyInAnyOrder("kid 1 failed", "kid 3 failed");
    }

    @Test
    void nested_fan_out_three_levels_deep_completes(DurableTesting t) {
        long id = t.durable().insert(Parent.class, new Plan(2, null, false, 2, null)).id();
        Joined j = joined(t, id);
        assertThat(j.done()).isEqualTo(2);
        assertThat(parent.joins.get(id).get()).isEqualTo(1);
        // 2 kids, each with 2 grandkids, each with 2 great-grandkids: 2 + 4 + 8 rows under the parent.
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE status = 'done'")).isEqualTo(1 + 2 + 4 + 8);
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE children_pending <> 0")).isZero();
    }
}
