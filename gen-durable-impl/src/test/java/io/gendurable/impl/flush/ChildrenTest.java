package io.gendurable.impl.flush;

import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.Child;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.StatementCounter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fan-outs on started engines: ten thousand children in one statement, a join carried across
 * queues by pokes alone, two hundred parents over two engines, a GC run mid-join. The rules one
 * thread shows are {@link ChildrenRulesTest}'s.
 */
@EngineTest
class ChildrenTest {
    /** A parent: how many children, their keys (null for none), and whether they fail. */
    public record Plan(int children, List<String> keys, boolean fail, int depth, String childQueue) {
        static Plan of(int n) {
            return new Plan(n, null, false, 0, null);
        }
    }

    public record Work(int n, boolean fail, int depth) {
    }

    public record Joined(int children, int done, int failed, List<String> errors) {
    }

    @DurableFsm(name = "parent")
    public static class Parent implements Fsm<Plan> {
        final Map<Long, AtomicInteger> joins = new ConcurrentHashMap<>();
        final Map<Long, Integer> seen = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Plan p, StepContext ctx) {
            if (step.equals("start")) {
                List<NewInstance> kids = new ArrayList<>();
                for (int i = 0; i < p.children(); i++) {
                    String key = p.keys() == null ? null : p.keys().get(i);
                    InsertOptions.Builder o = InsertOptions.builder().correlationKey(key);
                    if (p.childQueue() != null) {
                        o.queue(p.childQueue());
                    }
                    kids.add(NewInstance.of(Kid.class, new Work(i, p.fail() && i % 2 == 1, p.depth()), o.build()));
                }
                return Outcome.scheduleChildren(kids, "join", p);
            }
            joins.computeIfAbsent(ctx.id(), k -> new AtomicInteger()).incrementAndGet();
            seen.put(ctx.id(), ctx.children().size());
            List<Child> cs = ctx.children();
            return Outcome.done(new Joined(cs.size(), (int) cs.stream().filter(c -> c.status() == Status.DONE).count(),
                    (int) cs.stream().filter(c -> c.status() == Status.FAILED).count(),
                    cs.stream().map(Child::lastError).filter(e -> e != null).distinct().toList()));
        }
    }

    /** A child: done with n*10, or stop, or (depth > 0) a parent of two grandchildren itself. */
    @DurableFsm(name = "kid", maxAttempts = 1)
    public static class Kid implements Fsm<Work> {
        volatile CountDownLatch hold;

        @Override
        public Outcome step(String step, Work w, StepContext ctx) throws Exception {
            if (step.equals("start")) {
                CountDownLatch h = hold;
                if (h != null && w.n() == 1) {
                    h.await(30, TimeUnit.SECONDS);
                }
                if (w.fail()) {
                    return Outcome.stop("kid " + w.n() + " failed");
                }
                if (w.depth() > 0) {
                    return Outcome.scheduleChildren(List.of(
                            NewInstance.of(Kid.class, new Work(0, false, w.depth() - 1)),
                            NewInstance.of(Kid.class, new Work(2, false, w.depth() - 1))), "join", w);
                }
                return Outcome.done(Map.of("value", w.n() * 10));
            }
            int sum = ctx.children().stream().mapToInt(c -> c.result().as(Map.class).size()).sum();
            return Outcome.done(Map.of("value", sum, "children", ctx.children().size()));
        }
    }

    private Joined joined(Engine e, long id) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100))
                .until(() -> e.find(id).orElseThrow().status().isTerminal());
        return e.find(id).orElseThrow().result().as(Joined.class);
    }

    @Test
    void a_parent_fanning_out_ten_thousand_children_inserts_them_in_one_statement_and_wakes_once_with_all(EngineHarness h) {
        StatementCounter counter = h.countStatements();
        Parent parent = new Parent();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 32)).prefetch(32), parent, new Kid());
        long id = e.insert(Parent.class, Plan.of(10_000)).id();
        Joined j = joined(e, id);
        assertThat(j.children()).isEqualTo(10_000);
        assertThat(j.done()).isEqualTo(10_000);
        assertThat(parent.joins.get(id).get()).isEqualTo(1);
        // One insert statement for the parent, one for all its children.
        assertThat(counter.count("WITH input")).isEqualTo(2);
        assertThat(h.queryLong("SELECT children_pending FROM gen_durable WHERE id = " + id)).isZero();
    }

    @Test
    void children_in_another_queue_run_there_and_their_join_wakes_the_parent_with_no_poll(EngineHarness h) {
        Parent parent = new Parent();
        // Polls every 60 s: only pokes can carry the fan-out and the join across queues in time.
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 4, "kids", 4))
                .poll(Duration.ofSeconds(60), Duration.ofSeconds(60)), parent, new Kid());
        long id = e.insert(Parent.class, new Plan(3, null, false, 0, "kids")).id();
        await().atMost(Duration.ofSeconds(5)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE queue = 'kids' AND status = 'done'")).isEqualTo(3);
    }

    @Test
    void two_hundred_parents_of_fifty_children_across_two_engines_each_wake_exactly_once(EngineHarness h) {
        Parent parent = new Parent();
        Kid kid = new Kid();
        Engine a = h.start("a", c -> c.queues(Map.of("default", 16)).prefetch(16), parent, kid);
        Engine b = h.start("b", c -> c.queues(Map.of("default", 16)).prefetch(16), parent, kid);
        List<NewInstance> parents = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            parents.add(NewInstance.of(Parent.class, Plan.of(50)));
        }
        List<Long> ids = a.insertAll(parents).stream().map(r -> r.id()).toList();
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(250)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE fsm = 'parent' AND status = 'done'") == 200);
        for (long id : ids) {
            assertThat(parent.joins.get(id)).as("joins of parent %d", id).hasValue(1);
            assertThat(parent.seen.get(id)).isEqualTo(50);
        }
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE children_pending <> 0")).isZero();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status <> 'done'")).isZero();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE fsm = 'kid'")).isEqualTo(200 * 50);
    }

    @Test
    void gc_run_mid_join_deletes_no_child_of_a_waiting_parent(EngineHarness h) {
        Parent parent = new Parent();
        Kid kid = new Kid();
        kid.hold = new CountDownLatch(1);
        Engine e = h.start("n1", c -> c.gc(new EngineConfig.GcConfig(false, Duration.ofHours(1), Duration.ZERO, Duration.ZERO, 100)),
                parent, kid);
        long id = e.insert(Parent.class, Plan.of(3)).id();
        await().atMost(Duration.ofSeconds(10)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE parent_id = " + id + " AND status = 'done'") == 2);
        long unrelated = e.insert(Kid.class, new Work(5, false, 0)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(unrelated).orElseThrow().status() == Status.DONE);

        assertThat(EngineInternals.gc(e).runOnce()).isEqualTo(1);  // the unrelated done row only
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE parent_id = " + id)).isEqualTo(3);

        kid.hold.countDown();
        Joined j = joined(e, id);
        assertThat(j.children()).isEqualTo(3);
    }
}
