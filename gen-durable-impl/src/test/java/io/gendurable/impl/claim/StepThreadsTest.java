package io.gendurable.impl.claim;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A queue's steps need no more threads than its concurrency: no thread waits for its outcome's
 * commit. With a step pool of exactly the concurrency (two threads) and outcomes that wait a second
 * for their group commit, every step's code runs within that second, and all commit together.
 * (When each step thread waited for its own commit, the two threads ran two steps and the others
 * queued behind the wait.)
 */
@EngineTest
class StepThreadsTest {
    public record Work(int n) {
    }

    static final AtomicInteger RAN = new AtomicInteger();

    public static class Count implements Fsm<Work> {
        @Override
        public Outcome step(String step, Work w, StepContext ctx) {
            RAN.incrementAndGet();
            return Outcome.done(w);
        }
    }

    @Test
    void steps_whose_outcomes_wait_for_a_commit_hold_no_thread(EngineHarness h) {
        RAN.set(0);
        Engine e = twoThreadsTwoSecondCommits(h, new Count());
        // the first outcome opens a two-second batch: the other seven steps run while it waits
        List<Long> ids = eightWithinASecondAndAHalf(e, Count.class, RAN,
                "eight steps' code on two threads while their outcomes wait for one commit");
        await().atMost(Duration.ofSeconds(10)).until(() ->
                ids.stream().allMatch(id -> e.find(id).orElseThrow().status() == Status.DONE));
        assertThat(e.metrics().flushes.sum()).as("one group commit, or two").isLessThanOrEqualTo(2);
        assertThat(e.metrics().flushErrors.sum()).isZero();
    }

    /**
     * The step's end (its slot, its claim) is told after its flush whatever a step observer does:
     * an observer that throws an Error on every step must not leave the steps counted as waiting
     * (with eight leaked, a queue of concurrency 1 would run nothing more).
     */
    @Test
    void an_observer_that_throws_an_error_leaks_no_slot(EngineHarness h) {
        RAN.set(0);
        Engine e = h.build("node", c -> c.queues(Map.of("default", 1)), InstantSource.system(),
                b -> b.events(new io.gendurable.impl.runtime.EngineEvents() {
                    @Override
                    public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos,
                                             String error, boolean stale) {
                        throw new AssertionError("an observer's Error");
                    }
                }), new Count());
        e.start();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(e.insert(Count.class, new Work(i)).id());
        }
        await().atMost(Duration.ofSeconds(30)).until(() ->
                ids.stream().allMatch(id -> e.find(id).orElseThrow().status() == Status.DONE));
        assertThat(RAN.get()).isEqualTo(20);
    }

    static final AtomicInteger FIRST = new AtomicInteger();
    static final AtomicInteger SECOND = new AtomicInteger();

    /** Two steps, the second inline (it runs on this node right after the first's commit). */
    @DurableFsm(name = "stepthreads-chain", inlineExecution = true)
    public static class Chain implements Fsm<Work> {
        @Override
        public Outcome step(String step, Work w, StepContext ctx) {
            if (step.equals("start")) {
                FIRST.incrementAndGet();
                return Outcome.next("second", w);
            }
            SECOND.incrementAndGet();
            return Outcome.done(w);
        }
    }

    /**
     * No thread waits for an inline continue's commit either: with two threads, concurrency 2 and
     * a two-second group commit, all eight chains run their first step within the first 1.5 s and
     * their second after the commit. (When a thread waited for its chain's inline commit, two
     * chains ran and six waited for their threads.)
     */
    @Test
    void inline_continues_waiting_for_their_commit_hold_no_thread(EngineHarness h) {
        FIRST.set(0);
        SECOND.set(0);
        Engine e = twoThreadsTwoSecondCommits(h, new Chain());
        List<Long> ids = eightWithinASecondAndAHalf(e, Chain.class, FIRST,
                "eight chains' first steps on two threads while their inline continues wait for a commit");
        await().atMost(Duration.ofSeconds(20)).until(() ->
                ids.stream().allMatch(id -> e.find(id).orElseThrow().status() == Status.DONE));
        assertThat(SECOND.get()).isEqualTo(8);
        assertThat(e.metrics().picked.sum() + e.metrics().startedAtInsert.sum())
                .as("each chain claimed once (by a claim or by its insert): the second steps ran inline").isEqualTo(8);
        assertThat(e.metrics().flushErrors.sum()).isZero();
    }

    /** @return a started engine of one queue of concurrency 2 on a pool of two threads, whose flushes wait two seconds to group */
    private static Engine twoThreadsTwoSecondCommits(EngineHarness h, Fsm<Work> fsm) {
        Engine e = h.build("node", c -> c.queues(Map.of("default", 2)).flushers(List.of(
                new EngineConfig.FlusherConfig(List.of("*"), 100, Duration.ofSeconds(2), 2))),
                InstantSource.system(), b -> b.steps(h.owned(Executors.newFixedThreadPool(2))), fsm);
        e.start();
        return e;
    }

    /**
     * Inserts eight instances and asserts that {@code ran} counts all eight within 1.5 s of the first.
     *
     * @return their ids
     */
    private static List<Long> eightWithinASecondAndAHalf(Engine e, Class<? extends Fsm<Work>> fsm, AtomicInteger ran,
                                                         String what) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ids.add(e.insert(fsm, new Work(i)).id());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> ran.get() >= 1);
        long first = System.nanoTime();
        await().atMost(Duration.ofSeconds(10)).until(() -> ran.get() == 8);
        assertThat(Duration.ofNanos(System.nanoTime() - first)).as(what).isLessThan(Duration.ofMillis(1_500));
        return ids;
    }

    /** A cached step pool (the bench's) that counts the tasks handed to it. */
    static final class CountingPool extends ThreadPoolExecutor {
        final AtomicInteger tasks = new AtomicInteger();

        CountingPool() {
            super(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
        }

        @Override
        public void execute(Runnable command) {
            tasks.incrementAndGet();
            super.execute(command);
        }
    }

    /**
     * A thread whose step's code has ended takes the next buffered row itself: a stream of short
     * steps costs the step pool far fewer tasks (thread hand-offs, each a wake-up of a parked
     * thread) than steps. When every row was handed to the pool as its own task, 2,000 steps were
     * 2,000 tasks.
     */
    @Test
    void a_stream_of_short_steps_is_not_a_task_per_step(EngineHarness h) {
        RAN.set(0);
        CountingPool pool = new CountingPool();
        Engine e = h.build("node", c -> c.queues(Map.of("default", 16)), InstantSource.system(),
                b -> b.steps(h.owned(pool)), new Count());
        e.start();
        List<NewInstance> work = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            work.add(NewInstance.of(Count.class, new Work(i)));
        }
        e.insertAll(work);
        await().atMost(Duration.ofSeconds(60)).until(() -> RAN.get() == 2_000);
        await().atMost(Duration.ofSeconds(30)).until(() -> e.metrics().flushedOutcomes.sum() == 2_000);
        assertThat(pool.tasks.get()).as("tasks handed to the step pool for 2,000 short steps")
                .isLessThan(1_000);
    }

    /**
     * ...while slow steps still get a thread each at once: eight steps that each wait until all
     * eight run, on a queue of concurrency 8, all run together (a thread that ran rows one after
     * another would leave seven waiting for five seconds, then fail).
     */
    @Test
    void slow_steps_still_run_side_by_side(EngineHarness h) {
        CountDownLatch together = new CountDownLatch(8);
        AtomicInteger sawAll = new AtomicInteger();
        Fsm<Work> slow = new Fsm<>() {
            @Override
            public Outcome step(String step, Work w, StepContext ctx) {
                together.countDown();
                try {
                    if (together.await(5, TimeUnit.SECONDS)) {
                        sawAll.incrementAndGet();
                    }
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                return Outcome.done(w);
            }
        };
        Engine e = h.build("node", c -> c.queues(Map.of("default", 8)), InstantSource.system(),
                b -> b.steps(h.owned(new CountingPool())), new Slow(slow));
        e.start();
        for (int i = 0; i < 8; i++) {
            e.insert(Slow.class, new Work(i));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> e.metrics().flushedOutcomes.sum() == 8);
        assertThat(sawAll.get()).as("steps that saw all eight running at once").isEqualTo(8);
    }

    /** Delegates to a step function given by the test. */
    public static class Slow implements Fsm<Work> {
        private final Fsm<Work> body;

        Slow(Fsm<Work> body) {
            this.body = body;
        }

        @Override
        public Outcome step(String step, Work w, StepContext ctx) throws Exception {
            return body.step(step, w, ctx);
        }
    }
}
