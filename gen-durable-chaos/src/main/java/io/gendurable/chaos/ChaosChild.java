package io.gendurable.chaos;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A fan-out child: two steps under the gate key {@link #GATE_KEY} (gate {@code pool}, limit
 * {@link #GATE_LIMIT}), in their own queue {@link #QUEUE}, which every worker runs with concurrency
 * {@link #QUEUE_CONCURRENCY} and a prefetch above it: a worker often holds admitted children it has not started (buffered
 * gate slots), which is what a paused-then-undeployed worker must not credit twice.
 */
@DurableFsm(name = "chaos-child", queue = ChaosChild.QUEUE, maxAttempts = 100_000)
public final class ChaosChild implements Fsm<ChaosChild.State> {
    /** The children's queue. */
    public static final String QUEUE = "gated";
    /** The children queue's concurrency on every worker: 2 × 3 workers can run more than the gate's limit at once. */
    public static final int QUEUE_CONCURRENCY = 2;
    /** The gate's name (configured on every worker). */
    public static final String GATE = "pool";
    /** The gate's limit. */
    public static final int GATE_LIMIT = 3;
    /** The key every child runs under. */
    public static final String GATE_KEY = GATE + ":main";
    /** The steps, in order. */
    public static final List<String> STEPS = List.of("start", "finish");

    /**
     * @param parent the parent's number @param index the child's index @param seq committed transitions
     * @param by     the execution that produced this state
     */
    public record State(int parent, int index, int seq, String by) {
    }

    private final StepLog log;

    /** @param log the step log */
    public ChaosChild(StepLog log) {
        this.log = log;
    }

    @Override
    public Outcome step(String step, State s, StepContext ctx) {
        StepLog.Execution x = log.begin(ctx);
        StepLog.work(50, 150);
        log.hold(ctx.id());
        Outcome o = switch (step) {
            case "start" -> Outcome.next("finish", new State(s.parent(), s.index(), s.seq() + 1, x.by()));
            case "finish" -> Outcome.done(Map.of("seq", s.seq() + 1, "by", x.by()));
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
