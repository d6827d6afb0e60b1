package io.gendurable.testing.agreement;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Job;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.testing.DrainException;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.TestClock;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static io.gendurable.testing.agreement.Kits.config;
import static io.gendurable.testing.agreement.Kits.kit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A step that throws a {@link VirtualMachineError}, and a rate limit's refill: on a node the first
 * leaves its row executing until the lease lapses (the reaper then runs it again), and a row
 * refused by a rate limit of 1 per 10 s runs at the refill, 10 s later. The node runs the
 * reclaimed row itself (the step thread the error ended took no slot or drainer with it). Under the kit the first
 * fails the drain saying so; the second runs at the refill too, not at the end of a 1 s, 2 s, 4 s…
 * walk (+15 s).
 */
class CrashAndRefillAgreementTest {

    /** Attempt 1 overflows its stack; attempt 2 is done. */
    @DurableFsm(name = "agree-deep")
    public static class Deep implements Fsm<String> {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            calls.incrementAndGet();
            if (ctx.attempt() == 1) {
                throw new StackOverflowError("deep recursion");
            }
            return Outcome.done("after " + ctx.attempt());
        }
    }

    /**
     * An inline chain: {@code start} continues inline to {@code deep}, whose first run overflows its
     * stack on the drainer that resumed the chain after its continue's commit; its second is done.
     */
    @DurableFsm(name = "agree-deep-chain", inlineExecution = true)
    public static class DeepChain implements Fsm<String> {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            if (step.equals("start")) {
                return Outcome.next("deep", s);
            }
            if (calls.incrementAndGet() == 1) {
                throw new StackOverflowError("deep recursion in a resumed chain");
            }
            return Outcome.done("after " + ctx.attempt());
        }
    }

    /**
     * The error in a chain's resumed step (an inline continue, its next step run by a drainer that
     * took the chain from the ready queue), on a queue of one slot: the slot and the drainer come
     * back, the claim is heartbeated no more, and the same node runs the step again after its lease.
     */
    @Test
    void a_virtual_machine_error_in_a_resumed_chain_leaves_the_node_its_slot_and_runs_again_after_the_lease() {
        Instant start = Kits.start();
        DeepChain onNode = new DeepChain();
        try (Production p = new Production("agree-crash-chain", new TestClock(start),
                b -> b.queues(Map.of("default", 1)), onNode)) {
            long id = p.engine.insert(DeepChain.class, "x").id();
            Awaitility.await().dontCatchUncaughtExceptions().alias("the resumed step ran once")
                    .atMost(Duration.ofSeconds(30)).until(() -> onNode.calls.get() == 1);
            assertThat(p.instance(id).status()).as("until its lease lapses").isEqualTo(Status.EXECUTING);
            assertThat(p.instance(id).step()).isEqualTo("deep");
            p.clock.advance(Duration.ofSeconds(31));  // past the harness's 30 s lease: the reaper takes it back
            Awaitility.await().dontCatchUncaughtExceptions().alias("the reaper took it back and the node's one slot ran it")
                    .atMost(Duration.ofSeconds(30)).until(() -> p.instance(id).status() == Status.DONE);
            assertThat(onNode.calls).hasValue(2);
            long other = p.engine.insert(DeepChain.class, "y").id();
            Awaitility.await().dontCatchUncaughtExceptions().alias("the slot runs the next instance too")
                    .atMost(Duration.ofSeconds(30)).until(() -> p.instance(other).status() == Status.DONE);
        }
    }

    /** Done with the instant (of its engine's clock) at which it ran. */
    @DurableFsm(name = "agree-metered")
    public static class Metered implements Job<String> {
        private final InstantSource clock;

        Metered(InstantSource clock) {
            this.clock = clock;
        }

        @Override
        public Object perform(String s, StepContext ctx) {
            return clock.instant().toString();
        }
    }

    @Test
    void a_step_that_throws_a_virtual_machine_error_runs_again_after_its_lease_on_a_node_and_fails_the_drain() {
        Instant start = Kits.start();
        // a row started by its insert's reserved slot, and one started by a drainer from the buffer
        nodeRunsItAgainAfterItsLease(start, "agree-crash", b -> b);
        nodeRunsItAgainAfterItsLease(start, "agree-crash-b", b -> b.startAtInsert(false));

        try (DurableTesting t = kit(new TestClock(start), config(), new Deep())) {
            long id = t.durable().insert(Deep.class, "x").id();
            assertThatThrownBy(t::drain).isInstanceOf(DrainException.class)
                    .hasMessageContainingAll("instance " + id, "StackOverflowError", "lease", "attempt 2")
                    .hasCauseInstanceOf(StackOverflowError.class);
            assertThat(t.instance(id).status()).as("under the kit, as on a node").isEqualTo(Status.EXECUTING);
        }
    }

    @Test
    void a_row_refused_by_a_rate_limit_runs_at_its_refill() {
        Instant start = Kits.start();
        InsertOptions metered = InsertOptions.builder().rateLimit("meter").build();
        List<Long> nodeOffsets;
        TestClock nodeClock = new TestClock(start);
        try (Production p = new Production("agree-refill", nodeClock, b -> b.limits(new LimitsConfig(
                Map.of("meter", new LimitsConfig.RateLimit("meter", 1, Duration.ofSeconds(10), 1, 1)), Map.of())),
                new Metered(nodeClock))) {
            long a = p.engine.insert(Metered.class, "a", metered).id();
            long b = p.engine.insert(Metered.class, "b", metered).id();
            p.runUntil(start.plus(Duration.ofSeconds(12)), Duration.ofSeconds(5));  // visits +5 s, +10 s, +12 s
            nodeOffsets = List.of(offset(start, p.instance(a).result().as(String.class)),
                    offset(start, p.instance(b).result().as(String.class)));
        }
        assertThat(nodeOffsets).as("seconds after the start, on a node").containsExactly(0L, 10L);

        TestClock kitClock = new TestClock(start);
        try (DurableTesting t = kit(kitClock, config("gendurable.rate-limits.meter.allowed=1",
                "gendurable.rate-limits.meter.period=PT10S", "gendurable.rate-limits.meter.burst=1"), new Metered(kitClock))) {
            long a = t.durable().insert(Metered.class, "a", metered).id();
            long b = t.durable().insert(Metered.class, "b", metered).id();
            t.drain();
            assertThat(List.of(offset(start, t.assertDone(a).as(String.class)), offset(start, t.assertDone(b).as(String.class))))
                    .as("seconds after the start, under the kit").isEqualTo(nodeOffsets);
        }
    }

    private static void nodeRunsItAgainAfterItsLease(Instant start, String hint,
                                                     UnaryOperator<EngineConfig.Builder> tweak) {
        Deep onNode = new Deep();
        try (Production p = new Production(hint, new TestClock(start), tweak, onNode)) {
            long id = p.engine.insert(Deep.class, "x").id();
            Awaitility.await().dontCatchUncaughtExceptions().alias("attempt 1 ran").atMost(Duration.ofSeconds(30)).until(() -> onNode.calls.get() == 1);
            assertThat(p.instance(id).status()).as("on a node, until its lease lapses").isEqualTo(Status.EXECUTING);
            p.clock.advance(Duration.ofSeconds(31));  // past the harness's 30 s lease: the reaper takes it back
            // ... and the same node runs it again: the step thread the error ended is not missed
            Awaitility.await().dontCatchUncaughtExceptions().alias("the reaper took it back and the node ran attempt 2")
                    .atMost(Duration.ofSeconds(30)).until(() -> p.instance(id).status() == Status.DONE);
            assertThat(p.instance(id).attempt()).isEqualTo(2);
            assertThat(p.instance(id).result().as(String.class)).isEqualTo("after 2");
            assertThat(onNode.calls).as("attempt 1, then attempt 2").hasValue(2);
        }
    }

    private static long offset(Instant start, String ranAt) {
        return Duration.between(start, Instant.parse(ranAt)).toSeconds();
    }
}
