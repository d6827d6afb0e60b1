package io.gendurable.testing.agreement;

import io.gendurable.AwaitResult;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

import static io.gendurable.testing.agreement.Kits.config;
import static io.gendurable.testing.agreement.Kits.kit;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Code under test that inserts and then awaits ({@code GenDurable.await}): on a node (here on the
 * system clock, as in production) the steps run meanwhile and the caller gets {@code Done}, or
 * {@code Busy} when the work needs longer than the timeout; under the kit, {@code await} runs the
 * drain on the test clock up to the timeout and answers the same.
 */
class AwaitAgreementTest {

    /** Its first attempt retries after {@code state} milliseconds; the second is done. */
    @DurableFsm(name = "agree-retrier")
    public static class Retrier implements Fsm<Long> {
        @Override
        public Outcome step(String step, Long millis, StepContext ctx) {
            return ctx.attempt() == 1 ? Outcome.retry(Duration.ofMillis(millis)) : Outcome.done("after " + ctx.attempt());
        }
    }

    /** The application's code under test: insert, then wait for the answer. */
    private static AwaitResult checkout(GenDurable durable, long retryMillis, Duration timeout) {
        long id = durable.insert(Retrier.class, retryMillis).id();
        return durable.await(id, timeout);
    }

    @Test
    void await_answers_done_when_the_work_fits_in_the_timeout_and_busy_when_it_does_not() {
        AwaitResult nodeDone;
        AwaitResult nodeBusy;
        try (EngineHarness h = new EngineHarness("agree-await")) {
            Engine node = h.start("prod", b -> b, InstantSource.system(), new Retrier());
            nodeDone = checkout(node, 100, Duration.ofSeconds(20));
            nodeBusy = checkout(node, Duration.ofHours(1).toMillis(), Duration.ofMillis(300));
        }
        assertThat(nodeDone).as("on a node").isInstanceOfSatisfying(AwaitResult.Done.class,
                d -> assertThat(d.result().as(String.class)).isEqualTo("after 2"));
        assertThat(nodeBusy).as("on a node").isInstanceOf(AwaitResult.Busy.class);

        Instant start = Kits.start();
        try (DurableTesting t = kit(new TestClock(start), config(), new Retrier())) {
            long t0 = System.nanoTime();
            AwaitResult kitDone = checkout(t.durable(), 100, Duration.ofSeconds(20));
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("no wall-clock wait").isLessThan(Duration.ofSeconds(10));
            assertThat(kitDone).as("under the kit").isInstanceOfSatisfying(AwaitResult.Done.class,
                    d -> assertThat(d.result().as(String.class)).isEqualTo("after 2"));

            Instant before = t.now();
            AwaitResult kitBusy = checkout(t.durable(), Duration.ofHours(1).toMillis(), Duration.ofMillis(300));
            assertThat(kitBusy).as("under the kit").isInstanceOf(AwaitResult.Busy.class);
            assertThat(t.now()).as("the caller waited its timeout on the test clock").isEqualTo(before.plusMillis(300));
        }
    }
}
