package com.example.orders;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;

import java.time.Duration;
import java.util.Set;

/** An application's FSM: small requests are approved at once, large ones wait for a decision. */
@DurableFsm(name = "approval")
public class Approval implements Fsm<Approval.Request> {

    /** The state. */
    public record Request(String who, int amount) {
    }

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
