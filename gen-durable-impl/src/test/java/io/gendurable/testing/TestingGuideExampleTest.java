package io.gendurable.testing;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.Outcome;
import io.gendurable.SignalTarget;
import io.gendurable.StepContext;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;

/** The main example of docs/testing.md, compiled and run (the page includes its tagged parts). */
// tag::extension[]
@GenDurableTest(fsms = TestingGuideExampleTest.Approval.class)
class TestingGuideExampleTest {

    public record Request(String who, int amount) {
    }

    @DurableFsm(name = "approval")
    public static class Approval implements Fsm<Request> {
        @Override
        public Outcome step(String step, Request r, StepContext ctx) {
            return switch (step) {
                case "start" -> r.amount() <= 100 ? Outcome.done("auto-approved")
                        : Outcome.await(Set.of("approved", "rejected"), "decide", r, Duration.ofDays(3));
                case "decide" -> ctx.awaited().isEmpty() ? Outcome.stop("no decision within 3 days")
                        : Outcome.done(ctx.awaited().get(0).name());
                default -> Outcome.stop("unknown step " + step);
            };
        }
    }

    @Test
    void a_small_request_is_approved_at_once(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Approval.class, new Request("ann", 50)).id();
        t.drain();
        t.assertDone(id, "auto-approved");
    }

    @Test
    void a_large_request_waits_for_a_decision(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Approval.class, new Request("bob", 500)).id();
        t.drain();
        t.assertAwaiting(id, "approved", "rejected");

        durable.signal(SignalTarget.id(id), "approved", null);
        t.drain();
        t.assertDone(id, "approved");
    }

    @Test
    void a_large_request_fails_without_a_decision(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Approval.class, new Request("cy", 500)).id();
        t.drain();

        t.fireTimeouts();   // the clock jumps 3 days ahead
        t.drain();
        t.assertFailed(id, "no decision within 3 days");
    }
    // end::extension[]

    @Test
    void a_drain_returns_every_step_it_ran_in_order(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Approval.class, new Request("dee", 500)).id();
        // tag::drain-result[]
        DrainResult r = t.drain();
        r.stepNamesOf(id);          // ["start"]
        r.countOf("approval");      // steps of one FSM
        r.steps().get(0).outcome(); // next, retry, await, schedule_children, done or stop
        // end::drain-result[]
        org.assertj.core.api.Assertions.assertThat(r.stepNamesOf(id)).containsExactly("start");
        org.assertj.core.api.Assertions.assertThat(r.countOf("approval")).isEqualTo(1);
        org.assertj.core.api.Assertions.assertThat(r.steps().get(0).outcome()).isEqualTo("await");
    }
}
