package io.gendurable.chaos;

import io.gendurable.Child;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.Status;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A fan-out: start schedules {@link #CHILDREN} children (each under the gate key {@code pool:main})
 * and parks; join checks that every child is done and finishes with {@code {seq: 2, children: 3}}.
 */
@DurableFsm(name = "chaos-parent", queue = "fanout", maxAttempts = 100_000)
public final class ChaosParent implements Fsm<ChaosParent.State> {
    /** Children per parent. */
    public static final int CHILDREN = 3;
    /** The steps, in order. */
    public static final List<String> STEPS = List.of("start", "join");

    /** @param n the parent number @param seq committed transitions so far @param by the execution that produced it */
    public record State(int n, int seq, String by) {
    }

    private final StepLog log;

    /** @param log the step log */
    public ChaosParent(StepLog log) {
        this.log = log;
    }

    @Override
    public Outcome step(String step, State s, StepContext ctx) {
        StepLog.Execution x = log.begin(ctx);
        StepLog.work(10, 40);
        log.hold(ctx.id());
        Outcome o = switch (step) {
            case "start" -> {
                List<NewInstance> children = new ArrayList<>();
                for (int i = 0; i < CHILDREN; i++) {
                    children.add(new NewInstance("chaos-child", new ChaosChild.State(s.n(), i, 0, null),
                            InsertOptions.builder().queue(ChaosChild.QUEUE).concurrencyKey(ChaosChild.GATE_KEY).build()));
                }
                yield Outcome.scheduleChildren(children, "join", new State(s.n(), s.seq() + 1, x.by()));
            }
            case "join" -> {
                List<Child> kids = ctx.children();
                long done = kids.stream().filter(k -> k.status() == Status.DONE).count();
                yield kids.size() == CHILDREN && done == CHILDREN
                        ? Outcome.done(Map.of("seq", s.seq() + 1, "children", (int) done, "by", x.by()))
                        : Outcome.stop("join saw " + kids.size() + " children, " + done + " done");
            }
            default -> throw new IllegalStateException("unknown step " + step);
        };
        log.end(x);
        return o;
    }

    @Override
    public Outcome onError(String step, State state, StepContext ctx, Throwable error) {
        return Outcome.retry(Duration.ofMillis(200));
    }
}
