package io.gendurable.testing.agreement;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Job;
import io.gendurable.Outcome;
import io.gendurable.SignalTarget;
import io.gendurable.StepContext;
import io.gendurable.testing.DrainException;
import io.gendurable.testing.DrainOptions;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.function.UnaryOperator;

import static io.gendurable.testing.agreement.Kits.config;
import static io.gendurable.testing.agreement.Kits.kit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An await with a 1 h timeout and a job, scheduled before or after the deadline, that sends the
 * awaited signal: on a node, whichever comes first in time wins. The kit moves time event by
 * event in that order (a drain fires a timeout due before the next scheduled row first), and
 * {@code fireTimeouts()} refuses to jump past a row a node would run before the deadline.
 */
class TimeoutOrderAgreementTest {

    /** Awaits "go" for an hour: done with "signalled" or "timed out". */
    @DurableFsm(name = "agree-waiter")
    public static class Waiter implements Fsm<String> {
        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            return switch (step) {
                case "start" -> Outcome.await(Set.of("go"), "woken", s, Duration.ofHours(1));
                default -> Outcome.done(ctx.awaited().isEmpty() ? "timed out" : "signalled");
            };
        }
    }

    /** Sends "go" to the instance whose id is its state. */
    @DurableFsm(name = "agree-poker")
    public static class Poker implements Job<Long> {
        volatile GenDurable durable;

        @Override
        public Object perform(Long waiter, StepContext ctx) {
            return durable.signal(SignalTarget.id(waiter), "go", null).name();
        }
    }

    private static InsertOptions at(Instant t) {
        return InsertOptions.builder().scheduleAt(t).build();
    }

    /** Runs the scenario on a node: the waiter, and the poker due {@code pokeAfter} after the start. @return the waiter's result */
    private static String onNode(Instant start, Duration pokeAfter) {
        Poker poker = new Poker();
        try (Production p = new Production("agree-timeout", new TestClock(start), UnaryOperator.identity(), new Waiter(), poker)) {
            poker.durable = p.engine;
            long waiter = p.engine.insert(Waiter.class, "w").id();
            p.engine.insert(Poker.class, waiter, at(start.plus(pokeAfter)));
            p.runUntil(start.plus(Duration.ofHours(3)), Duration.ofHours(3));
            return p.instance(waiter).result().as(String.class);
        }
    }

    @Test
    void a_drain_fires_a_timeout_due_before_the_next_scheduled_row_first() {
        Instant start = Kits.start();
        assertThat(onNode(start, Duration.ofHours(2))).as("on a node").isEqualTo("timed out");

        Poker poker = new Poker();
        try (DurableTesting t = kit(new TestClock(start), config(), new Waiter(), poker)) {
            poker.durable = t.durable();
            long waiter = t.durable().insert(Waiter.class, "w").id();
            t.durable().insert(Poker.class, waiter, at(start.plus(Duration.ofHours(2))));
            t.drain();
            t.assertDone(waiter, "timed out");
        }
    }

    @Test
    void fire_timeouts_refuses_to_jump_past_a_row_a_node_runs_before_the_deadline() {
        Instant start = Kits.start();
        assertThat(onNode(start, Duration.ofMinutes(30))).as("on a node").isEqualTo("signalled");

        Poker poker = new Poker();
        try (DurableTesting t = kit(new TestClock(start), config(), new Waiter(), poker)) {
            poker.durable = t.durable();
            long waiter = t.durable().insert(Waiter.class, "w").id();
            t.durable().insert(Poker.class, waiter, at(start.plus(Duration.ofMinutes(30))));
            t.drain(DrainOptions.defaults().collapseDelays(false));
            t.assertAwaiting(waiter, "go");

            assertThatThrownBy(t::fireTimeouts).isInstanceOf(DrainException.class)
                    .hasMessageContainingAll("before the await deadline", start.plus(Duration.ofMinutes(30)).toString());
            t.drain();
            t.assertDone(waiter, "signalled");
        }
    }
}
