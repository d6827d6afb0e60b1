package io.gendurable.impl.signals;

import io.gendurable.Outcome;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.Status;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.signals.SignalsTest.Doc;
import io.gendurable.impl.signals.SignalsTest.Scripted;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The signal paths only a started engine shows, each with a 60 s poll so that nothing but a poke
 * can explain a prompt wake: the poke after a park's recheck (a signal delivered while the step ran
 * in another thread), and the reaper loop firing a due await timeout by itself. The rules
 * themselves are {@link SignalsTest}'s, on the test kit.
 */
@EngineTest
class SignalLoopsTest {

    @Test
    void a_signal_delivered_while_the_step_runs_in_a_worker_thread_is_picked_up_at_once_after_the_park(EngineHarness h)
            throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> {
                entered.countDown();
                assertThat(release.await(20, TimeUnit.SECONDS)).isTrue();
                yield Outcome.await(Set.of("go"), "next", s);
            }
            default -> Outcome.done(s);
        });
        Engine e = h.start("n1", c -> c.poll(Duration.ofSeconds(60), Duration.ofSeconds(60)), fsm);
        long id = e.insert(Scripted.class, new Doc("x")).id();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(e.signal(SignalTarget.id(id), "go", new Doc("early"))).isEqualTo(SignalResult.DELIVERED);
        assertThat(e.find(id).orElseThrow().status()).isEqualTo(Status.EXECUTING);
        release.countDown();

        awaitDone(e, id);
        assertThat(fsm.runsOf("next")).singleElement().satisfies(s -> assertThat(s.awaited())
                .extracting(sig -> sig.payload().as(Doc.class)).containsExactly(new Doc("early")));
    }

    @Test
    void the_reaper_loop_fires_due_await_timeouts_by_itself(EngineHarness h) {
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> Outcome.await(Set.of("go"), "late", s, Duration.ofMillis(200));
            default -> Outcome.done(s);
        });
        // The fired timeout must poke the queue for the wake to run promptly.
        Engine e = h.start("n1", c -> c.reaper(new EngineConfig.ReaperConfig(true, Duration.ofMillis(100), 1000))
                .poll(Duration.ofSeconds(60), Duration.ofSeconds(60)), fsm);
        long id = e.insert(Scripted.class, new Doc("x")).id();
        awaitDone(e, id);
        assertThat(e.metrics().awaitTimeouts.sum()).isEqualTo(1);
        assertThat(fsm.runsOf("late")).singleElement().satisfies(s -> assertThat(s.awaited()).isEmpty());
    }

    private static void awaitDone(Engine e, long id) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                .until(() -> e.find(id).orElseThrow().status() == Status.DONE);
    }
}
