package io.gendurable.docs.samples.await;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.GenDurable;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;

/** The two forms of await. */
@ApplicationScoped
public class Waiting {
    @Inject GenDurable durable;

    void both(long id) {
        // tag::forms[]
        AwaitResult settled = durable.await(id, Duration.ofSeconds(5));                     // until SETTLED
        AwaitResult ended = durable.await(id, Duration.ofSeconds(5), AwaitUntil.TERMINAL);  // through parks
        // end::forms[]
    }
}
