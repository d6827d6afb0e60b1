package io.gendurable.impl.control;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Pausing a queue stops the inline chains running in it: a step that ends after the node has
 * seen the pause commits its {@code next} runnable (it waits in the paused queue) instead of
 * running it in the same worker. Before, chaining was allowed whenever the scheduler ran, paused
 * or not: a held step released after the pause ran 20 more steps of its chain, against
 * operations.md's "a {@code next} waits in the paused queue".
 */
@EngineTest
class PauseChainTest {
    public record Count(int n) {
    }

    @DurableFsm(name = "chain", inlineExecution = true)
    public static class Chain implements Fsm<Count> {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger ran = new AtomicInteger();

        @Override
        public Outcome step(String step, Count c, StepContext ctx) throws Exception {
            ran.incrementAndGet();
            if (c.n() == 0) {
                entered.countDown();
                release.await(30, TimeUnit.SECONDS);
            }
            return c.n() >= 20 ? Outcome.done() : Outcome.next("step", new Count(c.n() + 1));
        }
    }

    @Test
    void a_chain_released_after_its_queue_was_paused_stops_at_its_next_step(EngineHarness h) throws Exception {
        Chain fsm = new Chain();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 1)).poll(Duration.ofMillis(100), Duration.ofMillis(200)), fsm);
        long id = e.insert(Chain.class, new Count(0)).id();
        assertThat(fsm.entered.await(10, TimeUnit.SECONDS)).isTrue();
        e.operations().pauseQueue("default", "incident");
        await().alias("the node has seen the pause").atMost(Duration.ofSeconds(5))
                .until(() -> e.pausedQueues().contains("default"));
        fsm.release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.RUNNABLE);
        var s = e.find(id).orElseThrow();
        assertThat(s.step()).isEqualTo("step");
        assertThat(s.state().as(Count.class).n()).as("the chain stopped at its next step").isEqualTo(1);
        assertThat(fsm.ran.get()).isEqualTo(1);

        assertThat(e.operations().resumeQueue("default")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(fsm.ran.get()).isEqualTo(21);
    }
}
