package io.gendurable.docs.samples.signals;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.Signal;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

// tag::approval[]
@DurableFsm(name = "approval")
@ApplicationScoped
public class ApprovalFlow implements Fsm<ApprovalFlow.Approval> {
    public record Approval(String docId, int needed, Instant until) {}

    @Inject Approvers approvers;

    @Override
    public Outcome step(String step, Approval s, StepContext ctx) {
        return switch (step) {
            case "start" -> {
                approvers.ask(s.docId(), "approval-" + ctx.id());
                yield Outcome.await(Set.of("approved"), "collect", s, remaining(s));
            }
            case "collect" -> {
                List<Signal> pack = ctx.awaited();
                if (pack.isEmpty()) {                                     // timed out
                    long got = ctx.inbox().stream().filter(sig -> sig.name().equals("approved")).count();
                    yield Outcome.stop(got + " of " + s.needed() + " approvals before " + s.until());
                }
                if (pack.size() < s.needed()) {
                    yield Outcome.await(Set.of("approved"), "collect", s, remaining(s)); // keep collecting
                }
                yield Outcome.next("publish", s);   // consumes exactly the approvals counted
            }
            case "publish" -> Outcome.done();
            default -> Outcome.stop("unknown step " + step);
        };
    }

    private static Duration remaining(Approval s) {
        Duration left = Duration.between(Instant.now(), s.until());
        return left.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : left;
    }
}
// end::approval[]
