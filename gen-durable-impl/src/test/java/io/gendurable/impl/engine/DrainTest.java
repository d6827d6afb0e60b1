package io.gendurable.impl.engine;

import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Latches;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@EngineTest
class DrainTest {
    public record Item(int n) {
    }

    /** Every step holds at the one label "step" until the test releases it. */
    public static class Gate extends Latches implements Fsm<Item> {
        @Override
        public Outcome step(String step, Item s, StepContext ctx) throws Exception {
            hold("step");
            return Outcome.done(s);
        }
    }

    @Test
    void stopping_releases_buffered_claims_at_once_and_waits_for_the_running_step_to_commit(EngineHarness h) throws Exception {
        Gate gate = new Gate();
        Engine web = h.start("web", c -> c.queues(Map.of()), gate);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(web.insert(Gate.class, new Item(i)).id());
        }
        Engine worker = h.start("worker", c -> c.queues(Map.of("default", 1)).prefetch(5)
                .drainTimeout(Duration.ofSeconds(20)), gate);
        assertThat(gate.entered("step").await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> EngineInternals.schedulers(worker).get(0).buffered() == 5);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'")).isEqualTo(6);

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(worker::stop);
        // The five buffered rows go back to runnable while the running step still runs.
        await().atMost(Duration.ofSeconds(10)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'runnable' AND locked_by IS NULL AND attempt = 1") == 5);
        assertThat(stopping).isNotDone();

        gate.release("step");
        stopping.get(20, TimeUnit.SECONDS);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'")).isEqualTo(1);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'runnable'")).isEqualTo(5);
        assertThat(worker.metrics().released.sum()).isEqualTo(5);
        assertThat(worker.metrics().queue("default").released.sum()).as("the queue's share, its metric's queue tag").isEqualTo(5);
    }
}
