package io.gendurable.docs.samples.gettingstarted;

import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Status;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;

/** Inserting and reading, as the getting-started page shows them. */
@ApplicationScoped
public class Inserting {
    @Inject GenDurable durable;

    long insert(String orderId) {
        // tag::insert[]
        Inserted r = durable.insert(Checkout.class, new CheckoutState(orderId),
                InsertOptions.builder()
                        .correlationKey("order:" + orderId)   // dedup: one live instance per order
                        .queue("checkout")                    // default: @DurableFsm(queue), else "default"
                        .priority(0)                          // lower runs first
                        .scheduleIn(Duration.ofMinutes(5))    // or scheduleAt(Instant)
                        .build());
        long id = r.id();            // when r.duplicate(): the id of the live instance holding the key
        // end::insert[]
        return id;
    }

    void read(long id, String orderId) {
        // tag::read[]
        Optional<InstanceSnapshot> s = durable.find(id);                    // by id
        Optional<InstanceSnapshot> live = durable.find("order:" + orderId); // the instance holding the key

        s.ifPresent(i -> {
            Status status = i.status();                          // RUNNABLE, EXECUTING, DONE, FAILED…
            CheckoutState state = i.state().as(CheckoutState.class);
            String resultJson = i.result().json();               // "null" until done
            String error = i.lastError();                        // set by stop, and by onError's retries
        });
        // end::read[]
    }
}
