package io.gendurable.docs.samples.fsm;

import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Status;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Inserts shown on the FSM page. */
@ApplicationScoped
public class Inserts {
    @Inject GenDurable durable;

    void receipt(String orderId, String email) {
        // tag::insert-job[]
        durable.insert(SendReceipt.class, new ReceiptArgs(orderId, email));
        // end::insert-job[]
    }

    InsertOptions correlated(String orderId) {
        // tag::correlation[]
        InsertOptions options = InsertOptions.builder().correlationKey("order:" + orderId).build();
        // end::correlation[]
        return options;
    }

    InsertOptions keptWhileDone(String orderId) {
        InsertOptions options = InsertOptions.builder()
                .correlationKey("order:" + orderId)
                .correlationScope(Status.RUNNABLE, Status.EXECUTING, Status.AWAITING_SIGNAL,
                        Status.AWAITING_CHILDREN, Status.DONE)   // a done order is not started again
                .build();
        return options;
    }
}
