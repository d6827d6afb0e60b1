package io.gendurable.docs.samples.concurrency;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;

/** An FSM that takes a gate for one step only. */
@DurableFsm(name = "tenant-call")
@ApplicationScoped
public class TenantCall implements Fsm<TenantCall.Call> {
    /** @param tenant the tenant whose API quota the call uses */
    public record Call(String tenant) {}

    @Override
    public Outcome step(String step, Call s, StepContext ctx) {
        // tag::switch[]
        return switch (step) {
            case "load" -> Outcome.next("call-api", s).concurrencyKey("api:" + s.tenant());  // switch: the next step is gated
            case "call-api" -> Outcome.next("wrap-up", s).releaseConcurrencyKey();            // release: wrap-up runs unbounded
            case "wrap-up" -> Outcome.done();
            default -> Outcome.stop("unknown step " + step);
        };
        // end::switch[]
    }
}
