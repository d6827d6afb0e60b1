package io.gendurable.docs.samples.children;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Collections;

// tag::tree[]
@DurableFsm(name = "kid")
@ApplicationScoped
public class Kid implements Fsm<Kid.Tree> {
    public record Tree(int depth, int fanout) {}

    @Override
    public Outcome step(String step, Tree t, StepContext ctx) {
        return switch (step) {
            case "start" -> t.depth() == 0
                    ? Outcome.done(1)
                    : Outcome.scheduleChildren(
                            Collections.nCopies(t.fanout(), NewInstance.of(Kid.class, new Tree(t.depth() - 1, t.fanout()))),
                            "sum", t);
            case "sum" -> Outcome.done(ctx.children().stream()
                    .filter(c -> c.status() == Status.DONE)
                    .mapToInt(c -> c.result().as(Integer.class))
                    .sum());
            default -> Outcome.stop("unknown step " + step);
        };
    }
}
// end::tree[]
