package io.gendurable.impl.health;

import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.gauges.QueueGauges;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Liveness: every background loop of a started engine ticks under the name liveness watches;
 * a loop that stops ticking turns liveness DOWN, naming it, within three of its intervals plus
 * the grace; an engine not started (or stopped) is not judged.
 */
@EngineTest
class LivenessTest {
    static final Duration EVERY = Duration.ofMillis(100);

    /** Every loop on, every 100 ms, no grace. */
    private static EngineConfig.Builder allLoops(EngineConfig.Builder c) {
        return c.queues(Map.of("default", 1, "other", 1))
                .lease(Duration.ofSeconds(5), EVERY)
                .reaper(new EngineConfig.ReaperConfig(true, EVERY, 100))
                .gc(new EngineConfig.GcConfig(true, EVERY, Duration.ofDays(1), Duration.ofDays(1), 100))
                .awaitTick(EVERY)
                .gauges(new EngineConfig.GaugesConfig(true, EVERY))
                .health(new EngineConfig.HealthConfig(Duration.ofSeconds(2), Duration.ZERO));
    }

    @Test
    void every_loop_of_a_started_engine_ticks_under_the_name_liveness_watches(EngineHarness h) {
        Engine e = h.build("live", LivenessTest::allLoops, InstantSource.system());
        assertThat(e.health().watchedLoops()).containsOnlyKeys("reaper", "gc", "await watcher",
                "heartbeat of queue default", "heartbeat of queue other", QueueGauges.LOOP);
        EngineHealth.Check notStarted = e.health().liveness();
        assertThat(notStarted.up()).isTrue();
        assertThat(notStarted.data().get("engine")).startsWith("not started");

        e.start();
        await().atMost(Duration.ofSeconds(10)).until(() ->
                e.health().watchedLoops().keySet().stream().allMatch(l -> e.metrics().loops.get(l).isPresent()));
        EngineHealth.Check live = e.health().liveness();
        assertThat(live.up()).as(live.toString()).isTrue();
        assertThat(live.data()).hasSize(6).allSatisfy((loop, text) -> assertThat(text).startsWith("ticking: last began"));
    }

    @Test
    void a_loop_that_stops_ticking_turns_liveness_down_naming_it(EngineHarness h) {
        Engine e = h.start("stall", LivenessTest::allLoops);
        await().atMost(Duration.ofSeconds(10)).until(() -> e.health().liveness().up()
                && e.metrics().loops.get("gc").isPresent());

        EngineInternals.gc(e).stop();  // the GC's loop alone stops
        long stoppedAt = System.nanoTime();
        await().atMost(Duration.ofSeconds(10)).until(() -> !e.health().liveness().up());
        // not before three intervals (grace 0) have passed since its last iteration began
        assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isGreaterThanOrEqualTo(EVERY.multipliedBy(2));
        EngineHealth.Check down = e.health().liveness();
        assertThat(down.data().get("gc")).startsWith("STALLED: last began");
        assertThat(down.data()).allSatisfy((loop, text) -> {
            if (!loop.equals("gc")) {
                assertThat(text).as(loop).startsWith("ticking");
            }
        });

        EngineInternals.gc(e).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.health().liveness().up());

        e.stop();
        EngineHealth.Check stopped = e.health().liveness();
        assertThat(stopped.up()).isTrue();
        assertThat(stopped.data().get("engine")).startsWith("stopped");
    }

    @Test
    void a_loop_that_never_ticked_counts_from_the_start_and_a_failing_loop_still_ticks(EngineHarness h) {
        // the gauges' interval is an hour: after their first run they are late only after three hours
        Engine e = h.start("never", c -> allLoops(c).gauges(new EngineConfig.GaugesConfig(true, Duration.ofHours(1))));
        await().atMost(Duration.ofSeconds(10)).until(() -> e.health().liveness().up()
                && e.metrics().loops.get("reaper").isPresent());
        // a failing iteration is an iteration: the reaper's table is gone, it fails every time, yet ticks
        h.exec("ALTER TABLE gen_durable RENAME TO gen_durable_away");
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> e.health().liveness().data().get("reaper")
                    .endsWith("its last iteration failed"));
            assertThat(e.health().liveness().data().get("reaper")).startsWith("ticking");
        } finally {
            h.exec("ALTER TABLE gen_durable_away RENAME TO gen_durable");
        }
    }
}
