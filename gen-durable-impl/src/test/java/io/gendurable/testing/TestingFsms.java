package io.gendurable.testing;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Job;
import io.gendurable.Outcome;
import io.gendurable.StepContext;

import java.time.Duration;
import java.util.Set;

/** Small FSMs for the tests of the testing helpers. */
final class TestingFsms {
    private TestingFsms() {
    }

    public record Count(int n, int to) {
    }

    /** Counts from n to {@code to}, one step per number, then done with the count. */
    @DurableFsm(name = "counter")
    public static class Counter implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count c, StepContext ctx) {
            return c.n() < c.to() ? Outcome.next("count", new Count(c.n() + 1, c.to())) : Outcome.done(c.n());
        }
    }

    /** Like {@link Counter}, with inline execution (chained steps in one task). */
    @DurableFsm(name = "inline-counter", inlineExecution = true)
    public static class InlineCounter extends Counter {
    }

    /** Never ends. */
    @DurableFsm(name = "spinner")
    public static class Spinner implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count c, StepContext ctx) {
            return Outcome.next("spin", new Count(c.n() + 1, c.to()));
        }
    }

    /** Throws on its first {@code to} attempts, then is done with the attempt that made it. */
    @DurableFsm(name = "flaky")
    public static class Flaky implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count c, StepContext ctx) {
            if (ctx.attempt() <= c.to()) {
                throw new IllegalStateException("flaky attempt " + ctx.attempt());
            }
            return Outcome.done(ctx.attempt());
        }
    }

    /** Fails at once. */
    @DurableFsm(name = "doomed", maxAttempts = 1)
    public static class Doomed implements Job<Count> {
        @Override
        public Object perform(Count c, StepContext ctx) {
            throw new IllegalArgumentException("card declined");
        }
    }

    /** Awaits "go" for up to an hour; done with whether it came. */
    @DurableFsm(name = "waiter")
    public static class Waiter implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count c, StepContext ctx) {
            return switch (step) {
                case "start" -> Outcome.await(Set.of("go", "stop"), "woken", c, Duration.ofHours(1));
                default -> Outcome.done(!ctx.awaited().isEmpty());
            };
        }
    }

    /** A job of the "side" queue. */
    @DurableFsm(name = "side-job", queue = "side")
    public static class SideJob implements Job<Count> {
        @Override
        public Object perform(Count c, StepContext ctx) {
            return c.n();
        }
    }
}
