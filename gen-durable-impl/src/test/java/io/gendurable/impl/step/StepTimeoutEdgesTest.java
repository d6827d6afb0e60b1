package io.gendurable.impl.step;

import io.gendurable.Backoff;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Step timeouts at their edges (docs/fsm.md, "Step timeouts"): the longest accepted timeouts and
 * grace, the step thread's interrupt flag once a timeout took its step, and inline chains (each
 * step its own deadline).
 */
@EngineTest
class StepTimeoutEdgesTest {
    public record Job(String label) {
    }

    @AfterEach
    void noHook() {
        StepTimeouts.clearFireHook();
    }

    /** Done at once; stops at the first error with its text. */
    public static class Quick implements Fsm<Job> {
        @Override
        public Outcome step(String step, Job j, StepContext ctx) throws Exception {
            return Outcome.done("ran");
        }

        @Override
        public Outcome onError(String step, Job state, StepContext ctx, Throwable error) {
            return Outcome.stop(Backoff.describe(error));
        }
    }

    /** 500 years: within the accepted 1,000, beyond what System.nanoTime() can count (292 years). */
    @DurableFsm(name = "centuries", stepTimeout = "P182500D")
    public static class Centuries extends Quick {
    }

    private static final Duration CENTURIES = Duration.ofDays(182_500);

    @Test
    void a_timeout_of_centuries_accepted_by_the_annotation_lets_the_step_run(EngineHarness h) {
        Engine e = h.start("n1", c -> c, new Centuries());
        long id = e.insert(Centuries.class, new Job("a")).id();
        await().atMost(Duration.ofSeconds(15)).until(() -> e.find(id).orElseThrow().status().isTerminal());
        InstanceSnapshot s = e.find(id).orElseThrow();
        assertThat(s.lastError()).as("no error").isNull();
        assertThat(s.status()).isEqualTo(Status.DONE);
    }

    @Test
    void a_timeout_of_centuries_accepted_by_the_insert_or_the_configuration_lets_the_step_run(EngineHarness h) {
        Engine e = h.start("n1", c -> c.stepTimeout(CENTURIES, Duration.ofSeconds(10)), new Quick());
        long byConfig = e.insert(Quick.class, new Job("a")).id();
        long byInsert = e.insert(Quick.class, new Job("b"), InsertOptions.builder().stepTimeout(CENTURIES).build()).id();
        await().atMost(Duration.ofSeconds(15)).until(() -> e.find(byConfig).orElseThrow().status().isTerminal()
                && e.find(byInsert).orElseThrow().status().isTerminal());
        for (long id : new long[]{byConfig, byInsert}) {
            InstanceSnapshot s = e.find(id).orElseThrow();
            assertThat(s.lastError()).as("no error for " + id).isNull();
            assertThat(s.status()).isEqualTo(Status.DONE);
        }
    }

    @Test
    void a_grace_of_centuries_lets_the_engine_start_and_time_steps(EngineHarness h) {
        Engine e = h.start("n1", c -> c.stepTimeout(Duration.ofMillis(200), CENTURIES), new Quick());
        long id = e.insert(Quick.class, new Job("a")).id();
        await().atMost(Duration.ofSeconds(15)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
    }

    /**
     * Attempt 1 waits for the test (clearing interrupts) and returns once the timeout took it; its
     * onError and every later step record whether their thread starts interrupted.
     */
    @DurableFsm(name = "flag", stepTimeout = "PT0.2S")
    public static class Flag implements Fsm<Job> {
        final CountDownLatch mayReturn = new CountDownLatch(1);
        final Map<String, Boolean> interruptedAt = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Job j, StepContext ctx) {
            interruptedAt.put(step + "#" + ctx.attempt(), Thread.currentThread().isInterrupted());
            if (ctx.attempt() == 1 && step.equals("start")) {
                while (true) {
                    try {
                        if (mayReturn.await(30, TimeUnit.SECONDS)) {
                            break;
                        }
                        throw new AssertionError("the timeout did not take the step within 30 s");
                    } catch (InterruptedException ie) {
                        // ignored: this step returns only when the test says so
                    }
                }
                return Outcome.done("late");
            }
            return step.equals("start") ? Outcome.next("second", j) : Outcome.done("attempt " + ctx.attempt());
        }

        @Override
        public Outcome onError(String step, Job state, StepContext ctx, Throwable error) {
            interruptedAt.put("onError:" + step, Thread.currentThread().isInterrupted());
            return Outcome.retry(Duration.ZERO);
        }
    }

    @Test
    void a_timeout_that_took_the_step_leaves_no_interrupt_to_on_error_or_the_thread_s_next_steps(EngineHarness h) {
        Flag fsm = new Flag();
        // one step thread: the retry and its inline next run on the thread the timeout interrupted
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 1)), fsm);
        long id = e.insert(Flag.class, new Job("a")).id();
        StepTimeouts.fireHook = new StepTimeouts.FireHook() {
            @Override
            public void before(long instance) {
            }

            @Override
            public void after(long instance, boolean took) {
                if (instance == id && took) {
                    fsm.mayReturn.countDown();
                }
            }
        };
        await().atMost(Duration.ofSeconds(15)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(e.find(id).orElseThrow().result().as(String.class)).isEqualTo("attempt 1");
        assertThat(fsm.interruptedAt).as("no interrupt reaches onError or a later step")
                .containsEntry("onError:start", false).containsEntry("start#2", false).containsEntry("second#1", false);
    }

    /** Two steps chained inline, each taking 60% of the timeout: each is timed on its own. */
    @DurableFsm(name = "chained", stepTimeout = "PT0.5S", inlineExecution = true, history = true)
    public static class Chained extends Quick {
        @Override
        public Outcome step(String step, Job j, StepContext ctx) throws Exception {
            Thread.sleep(300);
            return step.equals("start") ? Outcome.next("second", j) : Outcome.done("chained");
        }
    }

    @Test
    void each_step_of_an_inline_chain_gets_its_own_deadline(EngineHarness h) {
        Engine e = h.start("n1", c -> c, new Chained());
        long id = e.insert(Chained.class, new Job("a")).id();
        await().atMost(Duration.ofSeconds(15)).until(() -> e.find(id).orElseThrow().status().isTerminal());
        InstanceSnapshot s = e.find(id).orElseThrow();
        assertThat(s.lastError()).isNull();
        assertThat(s.result().as(String.class)).isEqualTo("chained");
        assertThat(e.metrics().stepTimeouts.sum()).isZero();
    }

    /** "start" goes on to "slow" at once; "slow" sleeps 30 s (interruptible). No timeout of its own. */
    public static class GoesSlow extends Quick {
        @Override
        public Outcome step(String step, Job j, StepContext ctx) throws Exception {
            if (step.equals("start")) {
                return Outcome.next("slow", j);
            }
            Thread.sleep(30_000);
            return Outcome.done("slept");
        }
    }

    @DurableFsm(name = "goes-slow-inline", inlineExecution = true)
    public static class GoesSlowInline extends GoesSlow {
    }

    @Test
    void an_insert_s_timeout_holds_for_the_steps_after_a_next_inline_or_claimed_again(EngineHarness h) {
        Engine e = h.start("n1", c -> c, new GoesSlow(), new GoesSlowInline());
        InsertOptions timed = InsertOptions.builder().stepTimeout(Duration.ofMillis(250)).build();
        long claimedAgain = e.insert(GoesSlow.class, new Job("a"), timed).id();
        long inline = e.insert(GoesSlowInline.class, new Job("b"), timed).id();
        await().atMost(Duration.ofSeconds(15)).until(() -> e.find(claimedAgain).orElseThrow().status().isTerminal()
                && e.find(inline).orElseThrow().status().isTerminal());
        for (long id : new long[]{claimedAgain, inline}) {
            InstanceSnapshot s = e.find(id).orElseThrow();
            assertThat(s.status()).isEqualTo(Status.FAILED);
            assertThat(s.lastError()).isEqualTo("io.gendurable.StepTimeoutException: step 'slow' timed out after PT0.25S");
        }
    }

    /** Attempt 1 busy until the test releases it, clearing every interrupt; done at once later. */
    @DurableFsm(name = "stuck-cancelled", stepTimeout = "PT0.2S")
    public static class StuckThenCancelled implements Fsm<Job> {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch end = new CountDownLatch(1);
        final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public Outcome step(String step, Job j, StepContext ctx) {
            runs.incrementAndGet();
            if (ctx.attempt() == 1) {
                entered.countDown();
                while (end.getCount() > 0) {
                    Thread.interrupted();
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                }
                return Outcome.done("late");
            }
            return Outcome.done("attempt " + ctx.attempt());
        }
    }

    @Test
    void a_cancel_of_a_given_up_step_ends_it_cancelled_and_its_late_outcome_is_stale(EngineHarness h) throws Exception {
        StuckThenCancelled fsm = new StuckThenCancelled();
        CountDownLatch givenUp = new CountDownLatch(1);
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 2)).prefetch(0)
                .lease(Duration.ofSeconds(2), Duration.ofMillis(200))
                .stepTimeout(Duration.ZERO, Duration.ofMillis(300)), fsm);
        long id = e.insert(StuckThenCancelled.class, new Job("a")).id();
        StepTimeouts.fireHook = new StepTimeouts.FireHook() {
            @Override
            public void before(long instance) {
            }

            @Override
            public void after(long instance, boolean took) {
            }

            @Override
            public void graced(long instance, boolean gaveUp) {
                if (instance == id && gaveUp) {
                    givenUp.countDown();
                }
            }
        };
        assertThat(fsm.entered.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            assertThat(givenUp.await(15, TimeUnit.SECONDS)).as("its claim was given up").isTrue();
            e.operations().cancel(id, "stuck");
            await().alias("the given-up claim's lease lapsed").atMost(Duration.ofSeconds(15)).until(() ->
                    h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + id + " AND lease_expires_at < now()") == 1);
            io.gendurable.impl.engine.EngineInternals.reaper(e).runOnce();
            await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.CANCELLED);
            assertThat(fsm.end.getCount()).as("its code still runs").isOne();
        } finally {
            fsm.end.countDown();
        }
        long staleBefore = e.metrics().stale.sum();
        await().alias("the late outcome was refused as stale").atMost(Duration.ofSeconds(10))
                .until(() -> e.metrics().stale.sum() > staleBefore);
        InstanceSnapshot s = e.find(id).orElseThrow();
        assertThat(s.status()).isEqualTo(Status.CANCELLED);
        assertThat(fsm.runs.get()).as("never run again").isOne();
    }
}
