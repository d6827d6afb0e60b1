package io.gendurable.impl.signals;

import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Thousands of instances park while their signals race the park from other threads, through
 * two engines. A lost wake-up would leave an instance parked with its signal in the inbox.
 */
@EngineTest
class LostWakeupRaceTest {
    static final int INSTANCES = 3000;

    public record Waiting(int n) {
    }

    /** start: a little work, then await "go"; finish: done with the payload. */
    public static class ParkThenFinish implements Fsm<Waiting> {
        @Override
        public Outcome step(String step, Waiting s, StepContext ctx) {
            if (step.equals("start")) {
                return Outcome.await(Set.of("go"), "finish", s);
            }
            if (ctx.awaited().isEmpty()) {
                return Outcome.stop("woken without the awaited signal");
            }
            return Outcome.done(ctx.awaited().get(0).payload().as(Waiting.class));
        }
    }

    @Test
    void signals_racing_parks_from_other_threads_and_nodes_never_strand_an_instance(EngineHarness h) throws Exception {
        ParkThenFinish fsm = new ParkThenFinish();
        Engine a = h.start("a", c -> c.queues(Map.of("default", 16)).prefetch(16), fsm);
        Engine b = h.start("b", c -> c.queues(Map.of("default", 16)).prefetch(16), fsm);
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            batch.add(NewInstance.of(ParkThenFinish.class, new Waiting(i)));
        }
        List<Long> ids = new ArrayList<>(a.insertAll(batch).stream().map(r -> r.id()).toList());
        Collections.shuffle(ids, new Random(42));

        // Senders start at once: some signals land before the pick, some during the step, some
        // while the park commits, some after. Half go through each engine.
        ExecutorService senders = Executors.newFixedThreadPool(8);
        List<Future<SignalResult>> sent = new ArrayList<>();
        for (int k = 0; k < ids.size(); k++) {
            long id = ids.get(k);
            Engine via = k % 2 == 0 ? a : b;
            sent.add(senders.submit(() -> via.signal(SignalTarget.id(id), "go", new Waiting((int) id))));
        }
        for (Future<SignalResult> f : sent) {
            assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(SignalResult.DELIVERED);
        }
        senders.shutdown();

        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status IN ('done', 'failed')") == INSTANCES);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'failed'")).isZero();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable g WHERE status = 'awaiting_signal' "
                + "AND EXISTS (SELECT 1 FROM signals s WHERE s.target_id = g.id AND s.name = ANY (g.awaits))")).isZero();
        // Each result is the payload of its own signal; terminal outcomes cleared every inbox.
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE (result->>'n')::bigint <> id")).isZero();
        assertThat(h.queryLong("SELECT count(*) FROM signals")).isZero();
        System.out.printf("lost-wakeup race: %d instances, %d stale, %d rewoken by recheck or wake%n", INSTANCES,
                a.metrics().stale.sum() + b.metrics().stale.sum(),
                a.metrics().steps("await") + b.metrics().steps("await"));
    }
}
