package io.gendurable.docs.samples.gettingstarted;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;

// tag::fsm[]
@DurableFsm(name = "checkout")            // optional; the name defaults to the class's FQCN
@ApplicationScoped                         // needed: @DurableFsm does not make a bean
public class Checkout implements Fsm<CheckoutState> {
    @Inject Payments payments;             // your own bean

    @Override
    public Outcome step(String step, CheckoutState s, StepContext ctx) {
        return switch (step) {
            case "start"  -> Outcome.next("charge", s);
            case "charge" -> payments.charge(s.orderId(), "checkout-" + ctx.id())
                                 ? Outcome.next("ship", s)
                                 : Outcome.retry(Duration.ofSeconds(30));
            case "ship"   -> Outcome.done(Map.of("orderId", s.orderId(), "shipped", true));
            default       -> Outcome.stop("unknown step " + step);
        };
    }
}
// end::fsm[]
