package io.gendurable.docs.samples.signals;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.Signal;
import io.gendurable.StepContext;
import io.gendurable.docs.samples.gettingstarted.CheckoutState;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Set;

/** A checkout that waits for the PSP's answer. */
@DurableFsm(name = "paid-checkout")
@ApplicationScoped
public class PaidCheckout implements Fsm<CheckoutState> {
    @Inject Psp psp;

    @Override
    public Outcome step(String step, CheckoutState s, StepContext ctx) {
        return switch (step) {
            case "start" -> Outcome.next("charge", s);
            // tag::await[]
            case "charge" -> {
                psp.requestPayment(s.orderId(), "checkout-" + ctx.id());
                yield Outcome.await(Set.of("payment_settled", "payment_failed"), "settle", s, Duration.ofHours(1));
            }
            // end::await[]
            // tag::settle[]
            case "settle" -> {
                if (ctx.awaited().isEmpty()) {
                    yield Outcome.stop("no answer from the PSP");               // only after a timeout
                }
                Signal first = ctx.awaited().get(0);
                yield first.name().equals("payment_settled")
                        ? Outcome.next("ship", s)                                // consumes what awaited() held
                        : Outcome.stop("payment failed: " + first.payload().as(PaymentFailure.class).reason());
            }
            // end::settle[]
            case "ship" -> Outcome.done();
            default -> Outcome.stop("unknown step " + step);
        };
    }
}
