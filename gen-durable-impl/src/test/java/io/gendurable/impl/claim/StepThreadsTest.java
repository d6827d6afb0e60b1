package io.gendurable.impl.claim;

import io.gendurable.Fsm;
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
import java.util.concurrent.Executors;
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
        Engine e = h.build("node", c -> c.queues(Map.of("default", 2)).flushers(List.of(
                new EngineConfig.FlusherConfig(List.of("*"), 100, Duration.ofSeconds(2), 2))),
                InstantSource.system(), b -> b.steps(h.owned(Executors.newFixedThreadPool(2))), new Count());
        e.start();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ids.add(e.insert(Count.class, new Work(i)).id());
        }
        // the first outcome opens a two-second batch: the other seven steps run while it waits
        await().atMost(Duration.ofSeconds(10)).until(() -> RAN.get() >= 1);
        long first = System.nanoTime();
        await().atMost(Duration.ofSeconds(10)).until(() -> RAN.get() == 8);
        assertThat(Duration.ofNanos(System.nanoTime() - first))
                .as("eight steps' code on two threads while their outcomes wait for one commit")
                .isLessThan(Duration.ofMillis(1_500));
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
}
