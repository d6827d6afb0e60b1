package io.gendurable.impl.step;

import io.gendurable.Backoff;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.StepRecord;
import io.gendurable.impl.config.ConfigException;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Step timeouts (docs/fsm.md, "Step timeouts"): a step past its timeout is interrupted and ends as a
 * {@link io.gendurable.StepTimeoutException} through {@code onError}; a step that ignores the
 * interrupt loses its heartbeat after the grace and the reaper takes its row back; whichever of the
 * step's return and the timeout comes first decides the outcome, never both.
 */
@EngineTest
class StepTimeoutTest {
    public record Job(String label) {
    }

    @AfterEach
    void noHook() {
        StepTimeouts.clearFireHook();
    }

    /** Sleeps on its first attempt (a cooperative step: the interrupt ends the sleep); done on the next. */
    @DurableFsm(name = "sleepy", stepTimeout = "PT0.3S", history = true)
    public static class Sleepy implements Fsm<Job> {
        final AtomicBoolean interrupted = new AtomicBoolean();

        @Override
        public Outcome step(String step, Job j, StepContext ctx) throws Exception {
            if (ctx.attempt() == 1) {
                try {
                    Thread.sleep(30_000);  // far past the timeout: only the interrupt ends it
                } catch (InterruptedException e) {
                    interrupted.set(true);
                    throw e;
                }
            }
            return Outcome.done("attempt " + ctx.attempt());
        }
    }

    @Test
    void a_cooperative_step_is_interrupted_retried_as_timed_out_and_completes_on_its_retry(EngineHarness h) {
        Sleepy fsm = new Sleepy();
        Engine e = h.start("n1", c -> c, fsm);
        long id = e.insert(Sleepy.class, new Job("a")).id();

        await().alias("done on the retry").atMost(Duration.ofSeconds(15))
                .until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(fsm.interrupted).as("the step's thread was interrupted").isTrue();
        InstanceSnapshot s = e.find(id).orElseThrow();
        assertThat(s.attempt()).isEqualTo(2);
        assertThat(s.result().as(String.class)).isEqualTo("attempt 2");
        var history = e.operations().inspect(id).orElseThrow().history();
        assertThat(history).extracting(StepRecord::attempt, StepRecord::outcome)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, "retry"), org.assertj.core.groups.Tuple.tuple(2, "done"));
        assertThat(history.get(0).error()).as("recorded as timed out")
                .isEqualTo("io.gendurable.StepTimeoutException: step 'start' timed out after PT0.3S");
        assertThat(e.metrics().stepTimeouts("sleepy", "start")).isEqualTo(1);
        assertThat(e.metrics().stepTimeouts.sum()).isEqualTo(1);
    }

    /** Busy on its first attempt until the test releases it, clearing every interrupt (a non-cooperative step). */
    @DurableFsm(name = "stubborn", stepTimeout = "PT0.2S")
    public static class Stubborn implements Fsm<Job> {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch end = new CountDownLatch(1);
        final AtomicInteger ignoredInterrupts = new AtomicInteger();
        final AtomicBoolean stuck = new AtomicBoolean();

        @Override
        public Outcome step(String step, Job j, StepContext ctx) {
            if (ctx.attempt() == 1) {
                stuck.set(true);
                entered.countDown();
                while (end.getCount() > 0) {
                    if (Thread.interrupted()) {
                        ignoredInterrupts.incrementAndGet();
                    }
                    LockSupport.parkNanos(1_000_000);
                }
                stuck.set(false);
                return Outcome.done("late");
            }
            return Outcome.done("attempt " + ctx.attempt());
        }
    }

    @Test
    void a_step_that_ignores_its_interrupt_loses_its_heartbeat_after_the_grace_and_its_late_outcome_is_stale(EngineHarness h) {
        Stubborn fsm = new Stubborn();
        // the heartbeat runs every 200 ms against a 2 s lease: a claim still heartbeated never lapses
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 2)).prefetch(0)
                .lease(Duration.ofSeconds(2), Duration.ofMillis(200))
                .stepTimeout(Duration.ZERO, Duration.ofMillis(300)), fsm);
        long id = e.insert(Stubborn.class, new Job("a")).id();
        try {
            assertThat(fsm.entered.await(10, TimeUnit.SECONDS)).as("the step runs").isTrue();
        } catch (InterruptedException ie) {
            throw new AssertionError(ie);
        }
        await().alias("the lease lapsed while the step's code still runs").atMost(Duration.ofSeconds(15)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + id
                        + " AND status = 'executing' AND lease_expires_at < now()") == 1);
        assertThat(fsm.stuck).as("the step's code still runs").isTrue();
        assertThat(fsm.ignoredInterrupts.get()).as("its thread was interrupted").isPositive();
        assertThat(e.metrics().stepTimeouts("stubborn", "start")).isEqualTo(1);

        assertThat(EngineInternals.reaper(e).runOnce()).as("the reaper takes the row back").isEqualTo(1);
        await().alias("the re-claim completes").atMost(Duration.ofSeconds(10))
                .until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(e.find(id).orElseThrow().result().as(String.class)).isEqualTo("attempt 2");
        var scheduler = EngineInternals.schedulers(e).get(0);
        await().alias("the re-run's slot is back; the stuck thread keeps its own").atMost(Duration.ofSeconds(10))
                .until(() -> scheduler.inFlight() == 1);
        assertThat(fsm.stuck).as("the step's code still runs").isTrue();

        long staleBefore = e.metrics().stale.sum();
        fsm.end.countDown();
        await().alias("the late outcome was refused as stale").atMost(Duration.ofSeconds(10))
                .until(() -> e.metrics().stale.sum() > staleBefore);
        await().alias("the slot comes back").atMost(Duration.ofSeconds(10)).until(() -> scheduler.inFlight() == 0);
        InstanceSnapshot s = e.find(id).orElseThrow();
        assertThat(s.status()).isEqualTo(Status.DONE);
        assertThat(s.attempt()).isEqualTo(2);
        assertThat(s.result().as(String.class)).as("nothing of the late step took effect").isEqualTo("attempt 2");
        assertThat(e.metrics().stepTimeouts("stubborn", "start")).isEqualTo(1);
    }

    /** Waits (ignoring interrupts) for the test's word on its first attempt, then returns done; done at once later. */
    @DurableFsm(name = "racer", stepTimeout = "PT0.2S", history = true)
    public static class Racer implements Fsm<Job> {
        final CountDownLatch mayReturn = new CountDownLatch(1);

        @Override
        public Outcome step(String step, Job j, StepContext ctx) {
            if (ctx.attempt() == 1) {
                awaitUninterruptibly(mayReturn);
                return Outcome.done("first");
            }
            return Outcome.done("attempt " + ctx.attempt());
        }
    }

    @Test
    void a_step_that_returns_as_its_timeout_fires_keeps_its_outcome_when_its_return_comes_first(EngineHarness h) {
        Racer fsm = new Racer();
        CountDownLatch timerAtTheAtomic = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        CountDownLatch decided = new CountDownLatch(1);
        AtomicBoolean timeoutTook = new AtomicBoolean(true);
        Engine e = h.start("n1", c -> c, fsm);
        long id = e.insert(Racer.class, new Job("a")).id();
        StepTimeouts.fireHook = new StepTimeouts.FireHook() {
            @Override
            public void before(long instance) {
                if (instance == id) {
                    timerAtTheAtomic.countDown();
                    awaitUninterruptibly(proceed);  // the timeout is due, and held right before it decides
                }
            }

            @Override
            public void after(long instance, boolean took) {
                if (instance == id) {
                    timeoutTook.set(took);
                    decided.countDown();
                }
            }
        };
        awaitUninterruptibly(timerAtTheAtomic);
        fsm.mayReturn.countDown();  // the step returns while the timer stands at the atomic
        await().alias("the step's own outcome committed").atMost(Duration.ofSeconds(10))
                .until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        proceed.countDown();
        awaitUninterruptibly(decided);

        assertThat(timeoutTook).as("the timeout found the step returned").isFalse();
        InstanceSnapshot s = e.find(id).orElseThrow();
        assertThat(s.attempt()).isEqualTo(1);
        assertThat(s.result().as(String.class)).isEqualTo("first");
        assertThat(e.operations().inspect(id).orElseThrow().history()).as("exactly one outcome")
                .extracting(StepRecord::attempt, StepRecord::outcome).containsExactly(org.assertj.core.groups.Tuple.tuple(1, "done"));
        assertThat(e.metrics().stepTimeouts("racer", "start")).isZero();
    }

    @Test
    void a_step_that_returns_just_after_its_timeout_fired_is_retried_as_timed_out(EngineHarness h) {
        Racer fsm = new Racer();
        Engine e = h.start("n1", c -> c, fsm);
        long id = e.insert(Racer.class, new Job("a")).id();
        StepTimeouts.fireHook = new StepTimeouts.FireHook() {
            @Override
            public void before(long instance) {
            }

            @Override
            public void after(long instance, boolean took) {
                if (instance == id && took) {
                    fsm.mayReturn.countDown();  // the step returns right after the timeout took it
                }
            }
        };
        await().alias("done on the retry").atMost(Duration.ofSeconds(15))
                .until(() -> e.find(id).orElseThrow().status() == Status.DONE);

        InstanceSnapshot s = e.find(id).orElseThrow();
        assertThat(s.result().as(String.class)).as("the late 'first' never took effect").isEqualTo("attempt 2");
        var history = e.operations().inspect(id).orElseThrow().history();
        assertThat(history).as("exactly one outcome per attempt: the timeout's, then the retry's")
                .extracting(StepRecord::attempt, StepRecord::outcome)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, "retry"), org.assertj.core.groups.Tuple.tuple(2, "done"));
        assertThat(history.get(0).error()).contains("StepTimeoutException: step 'start' timed out after PT0.2S");
        assertThat(e.metrics().stepTimeouts("racer", "start")).isEqualTo(1);
    }

    /** Always too slow; two attempts. */
    @DurableFsm(name = "always-slow", stepTimeout = "PT0.2S", maxAttempts = 2)
    public static class AlwaysSlow implements Fsm<Job> {
        @Override
        public Outcome step(String step, Job j, StepContext ctx) throws Exception {
            Thread.sleep(30_000);
            return Outcome.done();
        }
    }

    @Test
    void attempts_exhausted_by_timeouts_fail_the_instance_as_timed_out(EngineHarness h) {
        Engine e = h.start("n1", c -> c, new AlwaysSlow());
        long id = e.insert(AlwaysSlow.class, new Job("a")).id();
        await().alias("failed").atMost(Duration.ofSeconds(15))
                .until(() -> e.find(id).orElseThrow().status() == Status.FAILED);
        InstanceSnapshot s = e.find(id).orElseThrow();
        assertThat(s.attempt()).isEqualTo(2);
        assertThat(s.lastError()).isEqualTo("io.gendurable.StepTimeoutException: step 'start' timed out after PT0.2S");
        assertThat(e.metrics().stepTimeouts("always-slow", "start")).isEqualTo(2);
    }

    /**
     * Sleeps {@code Job.label} milliseconds if it is a number, else 30 s (interruptible); stops at
     * the first error with its text. No timeout of its own.
     */
    public static class Plain implements Fsm<Job> {
        @Override
        public Outcome step(String step, Job j, StepContext ctx) throws Exception {
            Thread.sleep(j.label().matches("\\d+") ? Long.parseLong(j.label()) : 30_000);
            return Outcome.done("slept");
        }

        @Override
        public Outcome onError(String step, Job state, StepContext ctx, Throwable error) {
            return Outcome.stop(Backoff.describe(error));
        }
    }

    @Test
    void the_configured_default_applies_and_an_insert_overrides_it_or_turns_it_off(EngineHarness h) {
        Engine e = h.start("n1", c -> c.stepTimeout(Duration.ofMillis(250), Duration.ofSeconds(1)), new Plain());
        long byConfig = e.insert(Plain.class, new Job("slow")).id();
        long byInsert = e.insert(Plain.class, new Job("slow"),
                InsertOptions.builder().stepTimeout(Duration.ofMillis(300)).build()).id();
        // a step that takes 700 ms, past the configured 250 ms: the insert's zero turns the timeout off
        long none = e.insert(Plain.class, new Job("700"), InsertOptions.builder().stepTimeout(Duration.ZERO).build()).id();

        await().atMost(Duration.ofSeconds(15)).until(() -> e.find(byConfig).orElseThrow().status() == Status.FAILED
                && e.find(byInsert).orElseThrow().status() == Status.FAILED
                && e.find(none).orElseThrow().status() == Status.DONE);
        assertThat(e.find(byConfig).orElseThrow().lastError()).endsWith("timed out after PT0.25S");
        assertThat(e.find(byInsert).orElseThrow().lastError()).endsWith("timed out after PT0.3S");
        assertThat(e.metrics().stepTimeouts(Plain.class.getName(), "start")).isEqualTo(2);
    }

    /** Per step: {@code tight} 200 ms, {@code unbounded} none, {@code bad} an invalid value; else the FSM's 250 ms. */
    @DurableFsm(name = "per-step", stepTimeout = "PT0.25S")
    public static class PerStep extends Plain {
        @Override
        public Duration stepTimeout(String step) {
            return switch (step) {
                case "tight" -> Duration.ofMillis(200);
                case "unbounded" -> Duration.ZERO;
                case "bad" -> Duration.ofSeconds(-1);
                default -> null;
            };
        }
    }

    @Test
    void a_step_s_own_timeout_overrides_the_fsm_s(EngineHarness h) {
        Engine e = h.start("n1", c -> c.stepTimeout(Duration.ofSeconds(5), Duration.ofSeconds(1)), new PerStep());
        long tight = e.insert(PerStep.class, new Job("slow"), InsertOptions.builder().step("tight").build()).id();
        long fsmWide = e.insert(PerStep.class, new Job("slow"), InsertOptions.builder().step("other").build()).id();
        long unbounded = e.insert(PerStep.class, new Job("700"), InsertOptions.builder().step("unbounded").build()).id();
        long bad = e.insert(PerStep.class, new Job("slow"), InsertOptions.builder().step("bad").build()).id();
        long insertWins = e.insert(PerStep.class, new Job("slow"),
                InsertOptions.builder().step("unbounded").stepTimeout(Duration.ofMillis(300)).build()).id();

        await().atMost(Duration.ofSeconds(15)).until(() -> e.find(tight).orElseThrow().status() == Status.FAILED
                && e.find(fsmWide).orElseThrow().status() == Status.FAILED
                && e.find(unbounded).orElseThrow().status() == Status.DONE
                && e.find(bad).orElseThrow().status() == Status.FAILED
                && e.find(insertWins).orElseThrow().status() == Status.FAILED);
        assertThat(e.find(tight).orElseThrow().lastError()).endsWith("step 'tight' timed out after PT0.2S");
        assertThat(e.find(fsmWide).orElseThrow().lastError()).endsWith("step 'other' timed out after PT0.25S");
        assertThat(e.find(bad).orElseThrow().lastError()).contains("stepTimeout(\"bad\") returned PT-1S")
                .contains("accepted: a duration from 1 ms to 1,000 years, zero for no timeout, or null for the FSM's");
        assertThat(e.find(insertWins).orElseThrow().lastError()).endsWith("step 'unbounded' timed out after PT0.3S");
    }

    @DurableFsm(name = "negative", stepTimeout = "-PT1S")
    public static class Negative extends Plain {
    }

    @DurableFsm(name = "unparsable", stepTimeout = "30 seconds")
    public static class Unparsable extends Plain {
    }

    @Test
    void bad_timeouts_are_refused_naming_the_field_and_the_accepted_values() {
        assertThatThrownBy(() -> FsmDefinition.of(new Negative())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("@DurableFsm stepTimeout must be an ISO-8601 duration from 1 ms to 1,000 years")
                .hasMessageContaining(Negative.class.getName()).hasMessageContaining("got '-PT1S'");
        assertThatThrownBy(() -> FsmDefinition.of(new Unparsable())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"PT0S\" for no timeout").hasMessageContaining("got '30 seconds'");
        assertThatThrownBy(() -> InsertOptions.builder().stepTimeout(Duration.ofSeconds(-1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("stepTimeout must be zero (no timeout) or a duration from 1 ms to 1,000 years, got PT-1S");
        assertThatThrownBy(() -> EngineConfig.builder().stepTimeout(Duration.ofSeconds(-1), Duration.ofSeconds(1)).build())
                .isInstanceOf(ConfigException.class).hasMessageContaining("gendurable.step-timeout")
                .hasMessageContaining("0 (no timeout, the default) or a duration of at least 1 ms");
        assertThatThrownBy(() -> EngineConfig.builder().stepTimeout(Duration.ZERO, Duration.ZERO).build())
                .isInstanceOf(ConfigException.class).hasMessageContaining("gendurable.step-timeout-grace");
        assertThatThrownBy(() -> ConfigKeys.STEP_TIMEOUT.parse("", "soon")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("gendurable.step-timeout");
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (!latch.await(30, TimeUnit.SECONDS)) {
                        throw new AssertionError("a precondition was not met within 30 s");
                    }
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
