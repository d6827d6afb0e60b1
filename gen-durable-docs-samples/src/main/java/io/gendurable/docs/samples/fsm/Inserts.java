package io.gendurable.docs.samples.fsm;

import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.Status;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Duration;

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

    Inserted debounced(String orderId, String email) {
        // tag::debounce[]
        InsertOptions options = InsertOptions.builder()
                .debounce("order:" + orderId, Duration.ofSeconds(30))   // one receipt, 30 s after the last change
                .build();
        Inserted r = durable.insert(SendReceipt.class, new ReceiptArgs(orderId, email), options);
        // end::debounce[]
        return r;
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
