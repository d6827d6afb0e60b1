package io.gendurable.docs.samples.fsm;

import io.gendurable.DurableFsm;
import io.gendurable.Job;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

// tag::job[]
@DurableFsm(name = "send-receipt", maxAttempts = 5)
@ApplicationScoped
public class SendReceipt implements Job<ReceiptArgs> {
    @Inject Mailer mailer;                        // your own bean

    @Override
    public Object perform(ReceiptArgs a, StepContext ctx) throws Exception {
        mailer.send(a.email(), "Receipt for " + a.orderId(), "receipt-" + ctx.id());
        return null;
    }
}
// end::job[]
