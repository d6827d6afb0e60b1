package io.gendurable.impl.control;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Cancel and pause issued on node A take effect on node B's running work (issue 15): the race
 * between an operator's action and a step in flight on another node is the subject here.
 */
@EngineTest
class OperationsAcrossNodesTest {
    public record Task(String label) {
    }

    /** Each step holds until its label is released, then moves to "end", which finishes. */
    public static class Holds implements Fsm<Task> {
        final Map<String, CountDownLatch> entered = new ConcurrentHashMap<>();
        final Map<String, CountDownLatch> released = new ConcurrentHashMap<>();

        CountDownLatch latch(Map<String, CountDownLatch> m, String label) {
            return m.computeIfAbsent(label, k -> new CountDownLatch(1));
        }

        @Override
        public Outcome step(String step, Task task, StepContext ctx) throws Exception {
            if (step.equals("end")) {
                return Outcome.done(task.label());
            }
            latch(entered, task.label()).countDown();
            if (!latch(released, task.label()).await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released: " + task.label());
            }
            return Outcome.next("end", task);
        }
    }

    EngineHarness h;

    @org.junit.jupiter.api.BeforeEach
    void up(EngineHarness h) {
        this.h = h;
    }

    /**
     * A cancel on node A of a step running on node B is a request: the row keeps its claim (and with
     * it its key and gate slot) until B's step returns; B's outcome is then discarded and the row
     * ends cancelled in that outcome's flush.
     */
    @Test
    void a_cancel_on_node_a_of_a_step_running_on_node_b_ends_it_cancelled_when_the_step_returns() throws Exception {
        Holds fsm = new Holds();
        Engine b = h.start("b", c -> c.queues(Map.of("default", 2)), fsm);
        Engine a = h.start("a", c -> c.queues(Map.of("other", 1)), fsm);
        long id = b.insert(Holds.class, new Task("x")).id();
        assertThat(fsm.latch(fsm.entered, "x").await(10, TimeUnit.SECONDS)).isTrue();

        var cancellation = a.operations().cancel(id, "operator on a");
        assertThat(cancellation.pending()).as("a step runs for it: the cancel is pending").isTrue();
        assertThat(a.find(id).orElseThrow().status()).isEqualTo(Status.EXECUTING);
        fsm.latch(fsm.released, "x").countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> a.find(id).orElseThrow().status() == Status.CANCELLED);
        var s = a.find(id).orElseThrow();
        assertThat(s.step()).as("the running step's next was not applied").isEqualTo("start");
        assertThat(s.lastError()).isEqualTo("operator on a");
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + id + " AND locked_by IS NULL"
                + " AND claim_token IS NULL")).isEqualTo(1);
    }

    @Test
    void a_pause_on_node_a_stops_node_b_claiming_and_gives_back_what_b_prefetched() throws Exception {
        Holds fsm = new Holds();
        // no start at insert: a row started by its insert while b's claim is under way makes b buffer
        // one row beyond its prefetch (the claim read its demand before that slot was taken), and
        // this test counts b's claimed rows exactly (a CI run once saw 5 of 4 here)
        Engine b = h.start("b", c -> c.queues(Map.of("default", 1)).prefetch(3).minDemand(1).startAtInsert(false)
                .poll(Duration.ofMillis(100), Duration.ofMillis(200)), fsm);
        Engine a = h.start("a", c -> c.queues(Map.of("other", 1)), fsm);
        List<NewInstance> tasks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            tasks.add(new NewInstance(Holds.class.getName(), new Task("t" + i), InsertOptions.defaults()));
        }
        b.insertAll(tasks);
        await().atMost(Duration.ofSeconds(10)).until(() -> count("status = 'executing'") == 4 && entered(fsm) == 1);

        a.operations().pauseQueue("default", "deploy");

        // b sees the pause within its poll interval: its three prefetched claims go back unstarted
        await().atMost(Duration.ofSeconds(5)).until(() -> count("status = 'executing'") == 1);
        assertThat(count("status = 'runnable' AND locked_by IS NULL")).isEqualTo(5);
        fsm.released.values().forEach(CountDownLatch::countDown);
        for (int i = 0; i < 6; i++) {
            fsm.latch(fsm.released, "t" + i).countDown();
        }
        // the running step finishes and commits; its next step waits in the paused queue like the rest
        await().atMost(Duration.ofSeconds(10)).until(() -> count("status = 'runnable' AND step = 'end'") == 1);
        // five fills of b (its poll runs one every 100 ms while paused): none of them claims anything
        for (int i = 1; i <= 5; i++) {
            long since = b.metrics().loops.now();
            await().alias("fill " + i + " of 5 of b's paused queue default began and is over")
                    .atMost(Duration.ofSeconds(5)).until(() -> b.metrics().loops.get("claim of queue default")
                            .filter(t -> t.began() > since && t.succeeded() >= t.began()).isPresent());
        }
        assertThat(count("status = 'runnable'")).isEqualTo(6);
        assertThat(entered(fsm)).isEqualTo(1);
        assertThat(b.pausedQueues()).containsExactly("default");

        assertThat(a.operations().resumeQueue("default")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> count("status = 'done'") == 6);
        assertThat(count("attempt <> 1")).as("a prefetched row given back keeps its attempt").isZero();
    }

    private long count(String where) {
        return h.queryLong("SELECT count(*) FROM gen_durable WHERE " + where);
    }

    private static long entered(Holds fsm) {
        return fsm.entered.values().stream().filter(l -> l.getCount() == 0).count();
    }
}
