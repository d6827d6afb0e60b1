package io.gendurable.docs.samples.fsm;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;

/** An FSM whose steps run back to back in one task. */
// tag::inline[]
@DurableFsm(name = "import", inlineExecution = true)   // every next runs ahead in the same task…
@ApplicationScoped
public class Imports implements Fsm<Imports.Batch> {
    public record Batch(String file, int rows) {}

    @Override
    public Outcome step(String step, Batch b, StepContext ctx) {
        return switch (step) {
            case "start"    -> Outcome.next("parse", b);
            case "parse"    -> Outcome.next("validate", b);
            case "validate" -> Outcome.next("publish", b).inline(false);   // …except this one: requeued
            case "publish"  -> Outcome.done(b.rows());
            default         -> Outcome.stop("unknown step " + step);
        };
    }
}
// end::inline[]
