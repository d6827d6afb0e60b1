package io.gendurable.impl.step;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A limit holds while a timed-out step ignores its interrupt past the grace: a claim whose row
 * holds a concurrency key (K = 1, or a gate's) is not given up, since its lapse would free the key
 * (or gate slot) for another step while the stuck thread still runs the first one's code.
 */
@EngineTest
class StepTimeoutKeyLimitTest {
    @org.junit.jupiter.api.AfterEach
    void noHook() {
        StepTimeouts.clearFireHook();
    }

    public record Job(String label) {
    }

    /** Label "stuck", attempt 1: busy until the test releases it, clearing every interrupt. Else: done at once. */
    @DurableFsm(name = "keyed-stubborn", stepTimeout = "PT0.2S")
    public static class KeyedStubborn implements Fsm<Job> {
        final CountDownLatch stuckEntered = new CountDownLatch(1);
        final CountDownLatch end = new CountDownLatch(1);
        final CountDownLatch otherEntered = new CountDownLatch(1);
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger maxRunning = new AtomicInteger();

        @Override
        public Outcome step(String step, Job j, StepContext ctx) {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                if (j.label().equals("stuck") && ctx.attempt() == 1) {
                    stuckEntered.countDown();
                    while (end.getCount() > 0) {
                        Thread.interrupted();
                        LockSupport.parkNanos(1_000_000);
                    }
                    return Outcome.done("late");
                }
                otherEntered.countDown();
                return Outcome.done(j.label() + " attempt " + ctx.attempt());
            } finally {
                running.decrementAndGet();
            }
        }
    }

    @Test
    void a_claim_holding_a_k_1_key_is_kept_past_the_grace_so_no_step_of_that_key_starts_beside_its_code(EngineHarness h)
            throws InterruptedException {
        runsAlone(h, c -> c, "k", "k");
    }

    @Test
    void a_claim_holding_a_gate_slot_is_kept_past_the_grace_so_the_gate_s_limit_holds(EngineHarness h)
            throws InterruptedException {
        runsAlone(h, c -> c.limits(new LimitsConfig(Map.of(), Map.of("g", new LimitsConfig.Gate("g", 1, 1)))), "g:t", "g:t");
    }

    private static void runsAlone(EngineHarness h, java.util.function.UnaryOperator<EngineConfig.Builder> limits,
                                  String stuckKey, String otherKey) throws InterruptedException {
        KeyedStubborn fsm = new KeyedStubborn();
        Engine e = h.start("n1", c -> limits.apply(c.queues(Map.of("default", 2)).prefetch(0)
                .lease(Duration.ofSeconds(2), Duration.ofMillis(200))
                .stepTimeout(Duration.ZERO, Duration.ofMillis(300))), fsm);
        long stuck = e.insert(KeyedStubborn.class, new Job("stuck"), InsertOptions.builder().concurrencyKey(stuckKey).build()).id();
        CountDownLatch graced = new CountDownLatch(1);
        AtomicBoolean givenUp = new AtomicBoolean();
        StepTimeouts.fireHook = new StepTimeouts.FireHook() {
            @Override
            public void before(long id) {
            }

            @Override
            public void after(long id, boolean took) {
            }

            @Override
            public void graced(long id, boolean gaveUp) {
                if (id == stuck) {
                    givenUp.set(gaveUp);
                    graced.countDown();
                }
            }
        };
        assertThat(fsm.stuckEntered.await(10, TimeUnit.SECONDS)).as("the stuck step runs").isTrue();
        long other = e.insert(KeyedStubborn.class, new Job("other"), InsertOptions.builder().concurrencyKey(otherKey).build()).id();
        try {
            assertThat(graced.await(15, TimeUnit.SECONDS)).as("the stuck step's grace passed").isTrue();
            assertThat(fsm.end.getCount()).as("its code still runs").isOne();
            String lease = "SELECT (extract(epoch FROM lease_expires_at) * 1000000)::bigint FROM gen_durable WHERE id = " + stuck;
            long before = h.queryLong(lease);
            await().alias("its claim is still heartbeated").atMost(Duration.ofSeconds(5))
                    .until(() -> h.queryLong(lease) > before);
            assertThat(EngineInternals.reaper(e).runOnce()).as("nothing to reap").isZero();
            assertThat(fsm.otherEntered.getCount()).as("no step of " + otherKey + " started (instance " + other
                    + ") while the stuck step of " + stuckKey + " runs its code").isOne();
            assertThat(givenUp).as("a claim holding " + stuckKey + " is not given up").isFalse();
        } finally {
            fsm.end.countDown();
        }
        await().alias("both done once the stuck step returned").atMost(Duration.ofSeconds(15)).until(() ->
                e.find(stuck).orElseThrow().status() == Status.DONE && e.find(other).orElseThrow().status() == Status.DONE);
        assertThat(e.find(stuck).orElseThrow().result().as(String.class)).as("its late outcome was the timeout's: retried")
                .isEqualTo("stuck attempt 2");
        assertThat(fsm.maxRunning.get()).as("steps running at once").isEqualTo(1);
    }
}
