package io.gendurable.docs.samples.concurrency;

import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Inserting with concurrency keys. */
@ApplicationScoped
public class Keys {
    // tag::k1[]
    @Inject GenDurable durable;

    void syncAccounts() {
        // no gendurable.concurrency-limits.account.* is configured, so every account:… key is K = 1
        InsertOptions account7 = InsertOptions.builder().concurrencyKey("account:7").build();
        durable.insert(AccountSync.class, new Sync(7), account7);
        durable.insert(AccountSync.class, new Sync(7), account7);     // never runs alongside the first
        durable.insert(AccountSync.class, new Sync(9),
                InsertOptions.builder().concurrencyKey("account:9").build());   // runs in parallel with them
    }
    // end::k1[]

    InsertOptions gated(String tenantId) {
        // tag::gate[]
        InsertOptions options = InsertOptions.builder().concurrencyKey("api:" + tenantId).build();
        // end::gate[]
        return options;
    }
}
