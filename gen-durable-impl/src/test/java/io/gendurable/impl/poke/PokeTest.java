package io.gendurable.impl.poke;

import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.Status;
import io.gendurable.impl.claim.Scheduler;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Item;
import io.gendurable.impl.support.Fsms.Noop;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@EngineTest
class PokeTest {
    @Test
    void an_insert_wakes_an_idle_scheduler_at_once_instead_of_after_its_poll(EngineHarness h) {
        // Polls every 30 s: only the poke can explain a prompt start.
        Engine e = h.start("n1", c -> c.poll(Duration.ofSeconds(30), Duration.ofSeconds(30)), new Noop());
        await().atMost(Duration.ofSeconds(5)).until(() -> e.metrics().picks.sum() >= 1);  // the start-up fill
        long id = e.insert(Noop.class, new Item(1)).id();
        await().atMost(Duration.ofSeconds(3)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
    }

    @Test
    void a_burst_of_pokes_coalesces_into_a_few_picks(EngineHarness h) {
        Engine e = h.start("n1", c -> c.poll(Duration.ofSeconds(30), Duration.ofSeconds(30)), new Noop());
        await().atMost(Duration.ofSeconds(5)).until(() -> e.metrics().picks.sum() >= 1);
        long before = e.metrics().picks.sum();
        Scheduler s = EngineInternals.schedulers(e).get(0);
        for (int i = 0; i < 10_000; i++) {
            s.poke();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> e.metrics().picks.sum() > before);
        long picks = e.metrics().picks.sum() - before;
        assertThat(picks).as("picks for 10,000 pokes").isLessThan(100);
    }

    @Test
    void an_idle_queue_backs_off_its_polls_to_the_maximum_interval(EngineHarness h) {
        Engine e = h.start("n1", c -> c.poll(Duration.ofMillis(20), Duration.ofMillis(400)), new Noop());
        long t0 = System.nanoTime();
        await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - t0 > 3_000_000_000L);
        long picks = e.metrics().picks.sum();
        // Without backoff: ~150 polls in 3 s; with it: 20+40+…+400 then every 400 ms, about a dozen.
        assertThat(picks).isBetween(3L, 25L);
    }

    @Test
    void a_future_scheduled_insert_wakes_nobody_and_runs_when_due(EngineHarness h) {
        Engine e = h.start("n1", c -> c.poll(Duration.ofMillis(50), Duration.ofMillis(100)), new Noop());
        long id = e.insert(Noop.class, new Item(1), io.gendurable.InsertOptions.builder()
                .scheduleIn(Duration.ofMillis(700)).build()).id();
        long start = System.nanoTime();
        await().atMost(Duration.ofSeconds(5)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(600);
    }
}
