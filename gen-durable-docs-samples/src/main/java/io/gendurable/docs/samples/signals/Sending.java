package io.gendurable.docs.samples.signals;

import io.gendurable.GenDurable;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Sending signals. */
@ApplicationScoped
public class Sending {
    // tag::send[]
    @Inject GenDurable durable;

    void paymentSettled(long id, String orderId) {
        // by id
        SignalResult r = durable.signal(SignalTarget.id(id), "payment_settled", new Payment("psp-991", 4200));

        // by correlation key, with a dedup key (here the sender's event id)
        SignalResult again = durable.signal(SignalTarget.correlationKey("order:" + orderId), "payment_settled",
                new Payment("psp-991", 4200), "psp-evt-991");
    }
    // end::send[]

    void vote(long id, String user) {
        // tag::vote[]
        // each approver signals with a dedup key: a second click is DUPLICATE while the pack waits
        durable.signal(SignalTarget.id(id), "approved", new Vote(user), "approver:" + user);
        // end::vote[]
    }
}
