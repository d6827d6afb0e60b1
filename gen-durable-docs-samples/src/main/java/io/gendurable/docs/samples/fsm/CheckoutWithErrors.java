package io.gendurable.docs.samples.fsm;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.docs.samples.gettingstarted.CheckoutState;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.logging.Level;
import java.util.logging.Logger;

/** A checkout that classifies its errors. */
@DurableFsm(name = "checkout-with-errors")
@ApplicationScoped
public class CheckoutWithErrors implements Fsm<CheckoutState> {
    private static final Logger LOG = Logger.getLogger(CheckoutWithErrors.class.getName());

    @Override
    public Outcome step(String step, CheckoutState s, StepContext ctx) {
        if (step.equals("start")) {
            throw new CardDeclinedException("declined");
        }
        return Outcome.done();
    }

    // tag::on-error[]
    @Override
    public Outcome onError(String step, CheckoutState s, StepContext ctx, Throwable error) {
        if (error instanceof CardDeclinedException) {
            return Outcome.stop("card declined");                    // no point retrying
        }
        LOG.log(Level.WARNING, "order " + ctx.id() + " step " + step + " attempt " + ctx.attempt(), error);
        return Fsm.super.onError(step, s, ctx, error);               // the default backoff
    }
    // end::on-error[]
}
