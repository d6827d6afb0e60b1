package io.gendurable.docs.samples.concurrency;

import io.gendurable.DurableFsm;
import io.gendurable.Job;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;

/** A job that must not run twice at once for one account. */
@DurableFsm(name = "account-sync")
@ApplicationScoped
public class AccountSync implements Job<Sync> {
    @Override
    public Object perform(Sync s, StepContext ctx) {
        return s.account();
    }
}
