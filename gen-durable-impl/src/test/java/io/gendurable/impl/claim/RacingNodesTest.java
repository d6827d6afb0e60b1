package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
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
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Several engines ("nodes") in one JVM race over one table. With no lease expiring, every step
 * of every instance must run exactly once: claims never overlap and no outcome is lost.
 */
@EngineTest
class RacingNodesTest {
    static final int INSTANCES = 10_000;
    static final int STEPS = 5;

    public record Progress(int step) {
    }

    /** Five steps; every run is logged as (id, step). */
    public static class FiveSteps implements Fsm<Progress> {
        final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        final Map<String, String> node = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Progress s, StepContext ctx) {
            runs.computeIfAbsent(ctx.id() + "/" + s.step(), k -> new AtomicInteger()).incrementAndGet();
            node.put(ctx.id() + "/" + s.step(), Thread.currentThread().getName());
            return s.step() + 1 < STEPS ? Outcome.next("step", new Progress(s.step() + 1)) : Outcome.done();
        }
    }

    @Test
    void three_nodes_run_ten_thousand_five_step_instances_with_every_step_exactly_once(EngineHarness h) {
        FiveSteps fsm = new FiveSteps();
        List<Engine> nodes = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            nodes.add(h.start("node" + i, c -> c.queues(Map.of("default", 16)).prefetch(16), fsm));
        }
        List<NewInstance> batch = new ArrayList<>(INSTANCES);
        for (int i = 0; i < INSTANCES; i++) {
            batch.add(new NewInstance(FiveSteps.class.getName(), new Progress(0),
                    io.gendurable.InsertOptions.builder().step("step").build()));
        }
        long t0 = System.nanoTime();
        nodes.get(0).insertAll(batch);
        await().atMost(Duration.ofSeconds(240)).pollInterval(Duration.ofMillis(250)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == INSTANCES);
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf("racing nodes: %d steps in %.1f s (%.0f steps/s)%n", INSTANCES * STEPS, seconds,
                INSTANCES * STEPS / seconds);

        assertThat(fsm.runs).hasSize(INSTANCES * STEPS);
        List<String> twice = fsm.runs.entrySet().stream().filter(e -> e.getValue().get() != 1)
                .map(Map.Entry::getKey).limit(10).toList();
        assertThat(twice).as("steps that ran more than once").isEmpty();
        long stale = nodes.stream().mapToLong(n -> n.metrics().stale.sum()).sum();
        long reaped = nodes.stream().mapToLong(n -> n.metrics().reaped.sum()).sum();
        assertThat(stale).isZero();
        assertThat(reaped).isZero();
        // Every node did part of the work, and nothing is left claimed.
        for (Engine n : nodes) {
            assertThat(n.metrics().steps("next") + n.metrics().steps("done")).isPositive();
        }
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE locked_by IS NOT NULL")).isZero();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status <> 'done'")).isZero();
    }
}
