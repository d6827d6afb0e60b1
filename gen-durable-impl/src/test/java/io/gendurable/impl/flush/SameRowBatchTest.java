package io.gendurable.impl.flush;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.InstanceSnapshot;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two outcomes of one row in one flush batch: a late one of a reaped claim T1 and the one of its
 * re-claim T2 by the same scheduler. Interleaving:
 * <ol>
 * <li>the scheduler claims R as T1; its step (run 1) starts and stalls past its lease;</li>
 * <li>the reaper returns R to runnable; the same scheduler claims R again as T2 (run 2);</li>
 * <li>run 1 returns (a fan-out, or an inline {@code next}), then run 2 returns {@code done}; the
 *     flusher (max-batch 2) writes both in one transaction.</li>
 * </ol>
 * Only T2's guarded update matches. The flush used to decide every rider and every answer by
 * {@code committed.contains(id)}: T1's children were inserted under a finished parent, and T1 was
 * answered COMMITTED (with an inline {@code next}, its chain went on under T2's new token: two
 * chains). Every rider and answer is now keyed by the claim the update matched: T1 is STALE.
 */
@EngineTest
class SameRowBatchTest {
    public record Task(String label) {
    }

    /** Run 1 holds, then returns what {@code first} says; run 2 holds, then ends the instance. */
    public static class TwoRuns implements Fsm<Task> {
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger afterFirst = new AtomicInteger();
        final Map<Integer, CountDownLatch> entered = new ConcurrentHashMap<>();
        final Map<Integer, CountDownLatch> released = new ConcurrentHashMap<>();
        volatile String first = "children";

        CountDownLatch latch(Map<Integer, CountDownLatch> m, int run) {
            return m.computeIfAbsent(run, k -> new CountDownLatch(1));
        }

        @Override
        public Outcome step(String step, Task t, StepContext ctx) throws Exception {
            if (!step.equals("a")) {
                afterFirst.incrementAndGet();  // a step only run 1's outcome leads to
                return Outcome.done();
            }
            int run = runs.incrementAndGet();
            latch(entered, run).countDown();
            if (!latch(released, run).await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("run " + run + " was never released");
            }
            if (run == 1) {
                return first.equals("children")
                        ? Outcome.scheduleChildren(List.of(
                                new NewInstance(TwoRuns.class.getName(), new Task("c1"), InsertOptions.builder().step("child").build()),
                                new NewInstance(TwoRuns.class.getName(), new Task("c2"), InsertOptions.builder().step("child").build())),
                        "joined", t)
                        : Outcome.next("b", t);
            }
            return Outcome.done(Map.of("by", "run " + run));
        }
    }

    EngineHarness h;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
    }

    @Test
    void a_reaped_claims_fan_out_in_the_batch_of_its_reclaims_outcome_inserts_no_child() throws Exception {
        TwoRuns fsm = new TwoRuns();
        fsm.first = "children";
        Engine e = start(fsm);
        long r = raceInOneBatch(e, fsm);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE parent_id = " + r))
                .as("children of the stale claim T1").isZero();
        assertThat(fsm.afterFirst.get()).isZero();
    }

    @Test
    void a_reaped_claims_inline_next_in_the_batch_of_its_reclaims_outcome_is_stale_and_its_chain_stops() throws Exception {
        TwoRuns fsm = new TwoRuns();
        fsm.first = "next";
        Engine e = start(fsm);
        raceInOneBatch(e, fsm);
        // a chain going on under T2's new token would run step "b" now
        Thread.sleep(500);  // elapsed time is the subject: nothing runs step "b" within 500 ms
        assertThat(fsm.afterFirst.get()).as("steps run after the stale claim's next").isZero();
    }

    private Engine start(TwoRuns fsm) {
        return h.start("batch", c -> c.queues(Map.of("default", 3)).lease(Duration.ofSeconds(60), Duration.ofSeconds(25))
                .flushers(List.of(new EngineConfig.FlusherConfig(List.of("*"), 2, Duration.ofSeconds(20), 1))), fsm);
    }

    /** @return R, after T1's and T2's outcomes were flushed in one batch and R is done by run 2 */
    private long raceInOneBatch(Engine e, TwoRuns fsm) throws Exception {
        long r = e.insert(TwoRuns.class, new Task("r"), InsertOptions.builder().step("a").build()).id();
        assertThat(fsm.latch(fsm.entered, 1).await(20, TimeUnit.SECONDS)).as("run 1 started").isTrue();
        h.exec("UPDATE gen_durable SET lease_expires_at = now() - interval '1 second' WHERE id = " + r);
        assertThat(EngineInternals.reaper(e).runOnce()).isEqualTo(1);
        EngineInternals.schedulers(e).forEach(s -> s.wake());
        assertThat(fsm.latch(fsm.entered, 2).await(20, TimeUnit.SECONDS)).as("run 2 (the re-claim) started").isTrue();
        long staleBefore = e.metrics().stale.sum();
        long flushesBefore = e.metrics().flushes.sum();
        fsm.latch(fsm.released, 1).countDown();   // T1's outcome waits for a second one (max-batch 2)
        fsm.latch(fsm.released, 2).countDown();   // T2's makes the batch
        await().atMost(Duration.ofSeconds(10)).alias("R done").until(
                () -> e.find(r).map(InstanceSnapshot::status).orElseThrow() == Status.DONE);
        assertThat(e.metrics().flushes.sum() - flushesBefore).as("both outcomes in one flush").isEqualTo(1);
        assertThat(e.metrics().stale.sum() - staleBefore).as("T1 answered stale").isEqualTo(1);
        assertThat(e.find(r).orElseThrow().result().toString()).contains("run 2");
        return r;
    }
}
