package io.gendurable.impl.flush;

import io.gendurable.Child;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A child counts toward its parent's join once, and only toward the fan-out that created it.
 * <ul>
 * <li>A retried child: P waits for C1 and C2; C1 fails and counts P down to 1; an operator retries
 *     C1 and it finishes. Its outcome named P as the parent to count down, so P reached 0 and
 *     joined while C2 still ran.</li>
 * <li>A cancelled and retried parent: P waits for C1 and C2, is cancelled (its children go on) and
 *     retried from {@code start}, where it fans out D1 and D2 (count 2). C1 and C2 finish and counted
 *     P's new round down to 0: P joined while D1 and D2 ran.</li>
 * </ul>
 * Each parent's fan-out now has a generation; a child carries the generation it counts toward
 * until it has counted, and the count-down matches it.
 */
@EngineTest
class JoinCountTest {
    /** labels: the children to fan out at start, by label. */
    public record Plan(List<String> labels) {
    }

    public record Work(String label) {
    }

    @DurableFsm(name = "join-parent")
    public static class Parent implements Fsm<Plan> {
        final Map<Long, List<Set<String>>> joins = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Plan p, StepContext ctx) {
            if (step.equals("start")) {
                List<NewInstance> kids = new ArrayList<>();
                for (String l : p.labels()) {
                    kids.add(NewInstance.of(Kid.class, new Work(l)));
                }
                return Outcome.scheduleChildren(kids, "join", p);
            }
            joins.computeIfAbsent(ctx.id(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                    .add(Set.copyOf(ctx.children().stream().filter(c -> c.status().isTerminal())
                            .map(Child::id).map(String::valueOf).toList()));
            return Outcome.done();
        }
    }

    /** Holds until its label is released; fails while its label is in {@code failing}. */
    @DurableFsm(name = "join-kid", maxAttempts = 1)
    public static class Kid implements Fsm<Work> {
        final Map<String, CountDownLatch> released = new ConcurrentHashMap<>();
        final Set<String> failing = ConcurrentHashMap.newKeySet();

        CountDownLatch latch(String label) {
            return released.computeIfAbsent(label, k -> new CountDownLatch(1));
        }

        @Override
        public Outcome step(String step, Work w, StepContext ctx) throws Exception {
            if (!latch(w.label()).await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released: " + w.label());
            }
            if (failing.contains(w.label())) {
                return Outcome.stop("kid " + w.label() + " failed");
            }
            return Outcome.done(w.label());
        }
    }

    private static long child(EngineHarness h, long parent, String label) {
        return h.queryLong("SELECT id FROM gen_durable WHERE parent_id = " + parent + " AND state->>'label' = '" + label + "'");
    }

    private static void awaitStatus(Engine e, long id, Status s) {
        await().alias(id + " " + s).atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == s);
    }

    @Test
    void a_retried_child_that_already_counted_does_not_count_its_parent_down_again(EngineHarness h) {
        Parent parent = new Parent();
        Kid kid = new Kid();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 4)), parent, kid);
        kid.failing.add("c1");
        long p = e.insert(Parent.class, new Plan(List.of("c1", "c2"))).id();
        awaitStatus(e, p, Status.AWAITING_CHILDREN);
        long c1 = child(h, p, "c1");
        long c2 = child(h, p, "c2");
        kid.latch("c1").countDown();
        awaitStatus(e, c1, Status.FAILED);
        assertThat(h.queryLong("SELECT children_pending FROM gen_durable WHERE id = " + p)).isEqualTo(1);

        kid.failing.remove("c1");
        e.operations().retry(c1);
        awaitStatus(e, c1, Status.DONE);
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> true);
        assertThat(e.find(p).orElseThrow().status()).as("P still waits for C2").isEqualTo(Status.AWAITING_CHILDREN);
        assertThat(h.queryLong("SELECT children_pending FROM gen_durable WHERE id = " + p)).isEqualTo(1);
        assertThat(parent.joins).isEmpty();

        kid.latch("c2").countDown();
        awaitStatus(e, p, Status.DONE);
        assertThat(parent.joins.get(p)).as("one join, with both children ended")
                .containsExactly(Set.of(String.valueOf(c1), String.valueOf(c2)));
    }

    @Test
    void the_first_round_of_a_cancelled_and_retried_parent_does_not_count_down_its_new_round(EngineHarness h) {
        Parent parent = new Parent();
        Kid kid = new Kid();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 8)), parent, kid);
        long p = e.insert(Parent.class, new Plan(List.of("c1", "c2"))).id();
        awaitStatus(e, p, Status.AWAITING_CHILDREN);
        long c1 = child(h, p, "c1");
        long c2 = child(h, p, "c2");
        e.operations().cancel(p, "operator");
        awaitStatus(e, p, Status.CANCELLED);

        e.operations().retry(p, io.gendurable.RetryOptions.defaults().fromStep("start")
                .withState(new Plan(List.of("d1", "d2"))));
        await().atMost(Duration.ofSeconds(10)).until(() -> h.queryLong(
                "SELECT count(*) FROM gen_durable WHERE parent_id = " + p + " AND state->>'label' LIKE 'd%'") == 2);
        awaitStatus(e, p, Status.AWAITING_CHILDREN);
        kid.latch("c1").countDown();
        kid.latch("c2").countDown();
        awaitStatus(e, c1, Status.DONE);
        awaitStatus(e, c2, Status.DONE);
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> true);
        assertThat(e.find(p).orElseThrow().status()).as("P waits for D1 and D2").isEqualTo(Status.AWAITING_CHILDREN);
        assertThat(h.queryLong("SELECT children_pending FROM gen_durable WHERE id = " + p)).isEqualTo(2);

        kid.latch("d1").countDown();
        kid.latch("d2").countDown();
        awaitStatus(e, p, Status.DONE);
        long d1 = child(h, p, "d1");
        long d2 = child(h, p, "d2");
        assertThat(parent.joins.get(p)).hasSize(1);
        assertThat(parent.joins.get(p).get(0)).contains(String.valueOf(d1), String.valueOf(d2));
    }

    /**
     * A child whose parent was deleted while it ran (the parent cancelled without its descendants,
     * then purged, or its retention over) ends. The flush locks a terminal child's parent skipping
     * locked rows and deferred the outcome when the parent was not locked: a deleted parent is
     * never locked, so the child's outcome was deferred at every flush and the child stayed
     * executing (found by {@link TreeModelTest}).
     */
    @Test
    void a_child_whose_parent_was_deleted_meanwhile_ends(EngineHarness h) {
        Parent parent = new Parent();
        Kid kid = new Kid();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 4)), parent, kid);
        long p = e.insert(Parent.class, new Plan(List.of("c1"))).id();
        awaitStatus(e, p, Status.AWAITING_CHILDREN);
        long c1 = child(h, p, "c1");
        awaitStatus(e, c1, Status.EXECUTING);
        e.operations().cancel(p, "operator");
        assertThat(e.operations().purge(io.gendurable.InstanceQuery.builder().status(Status.CANCELLED).build()).applied())
                .isEqualTo(1);
        assertThat(e.find(p)).isEmpty();
        kid.latch("c1").countDown();
        awaitStatus(e, c1, Status.DONE);
    }

    @Test
    void more_old_children_than_new_ones_neither_break_the_count_nor_the_flush_batch(EngineHarness h) {
        Parent parent = new Parent();
        Kid kid = new Kid();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 8)), parent, kid);
        long p = e.insert(Parent.class, new Plan(List.of("c1", "c2", "c3"))).id();
        awaitStatus(e, p, Status.AWAITING_CHILDREN);
        e.operations().cancel(p, "operator");
        awaitStatus(e, p, Status.CANCELLED);
        e.operations().retry(p, io.gendurable.RetryOptions.defaults().fromStep("start")
                .withState(new Plan(List.of("d1"))));
        awaitStatus(e, p, Status.AWAITING_CHILDREN);
        await().atMost(Duration.ofSeconds(10)).until(() -> h.queryLong(
                "SELECT count(*) FROM gen_durable WHERE parent_id = " + p + " AND state->>'label' = 'd1'") == 1);
        for (String l : List.of("c1", "c2", "c3")) {
            kid.latch(l).countDown();
        }
        for (String l : List.of("c1", "c2", "c3")) {
            awaitStatus(e, child(h, p, l), Status.DONE);
        }
        assertThat(e.find(p).orElseThrow().status()).isEqualTo(Status.AWAITING_CHILDREN);
        kid.latch("d1").countDown();
        awaitStatus(e, p, Status.DONE);
        assertThat(parent.joins.get(p)).hasSize(1);
    }
}
