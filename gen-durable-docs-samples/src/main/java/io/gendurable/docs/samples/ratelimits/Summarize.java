package io.gendurable.docs.samples.ratelimits;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** An FSM whose steps call a rate-limited API. */
@DurableFsm(name = "summarize")
@ApplicationScoped
public class Summarize implements Fsm<Summarize.Doc> {
    /**
     * @param tenant the tenant
     * @param text   the text
     */
    public record Doc(String tenant, String text) {}

    @Inject GenDurable durable;

    void start(Doc doc) {
        // tag::insert[]
        // the first step draws one token from "openai"
        durable.insert(Summarize.class, doc, InsertOptions.builder().rateLimit("openai").build());
        // end::insert[]
    }

    @Override
    public Outcome step(String step, Doc s, StepContext ctx) {
        if (step.equals("start")) {
            // tag::next[]
            // in a step: the next step draws 4 tokens from the tenant's own "openai" bucket
            return Outcome.next("summarize", s).rateLimit("openai", s.tenant()).weight(4);
            // end::next[]
        }
        return Outcome.done();
    }
}
