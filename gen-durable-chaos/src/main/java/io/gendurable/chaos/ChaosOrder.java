package io.gendurable.chaos;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * A multi-step FSM with a signal, under a K = 1 concurrency key (given at insert, kept by every
 * step): start → reserve → (await {@code paid}) → ship → finish (rate-limited by {@code psp}) → done
 * with {@code {seq: 4, paid: <the signal's payload>}}. Every step increments {@code seq} in the
 * state, which the commit trigger reads to detect a step outcome committed twice.
 */
@DurableFsm(name = "chaos-order", queue = "orders", maxAttempts = 100_000)
public final class ChaosOrder implements Fsm<ChaosOrder.State> {
    /** The steps, in order. */
    public static final java.util.List<String> STEPS = java.util.List.of("start", "reserve", "ship", "finish");

    /**
     * @param n    the order number
     * @param seq  committed transitions so far
     * @param paid the signal's payload
     * @param by   the step execution that produced this state ({@link StepLog.Execution#exec()}): the
     *             commit log reads it to tell which execution, under which claim, committed
     */
    public record State(int n, int seq, String paid, String by) {
    }

    private final StepLog log;

    /** @param log the step log */
    public ChaosOrder(StepLog log) {
        this.log = log;
    }

    @Override
    public Outcome step(String step, State s, StepContext ctx) {
        StepLog.Execution x = log.begin(ctx);
        StepLog.work(30, 150);
        log.hold(ctx.id());
        Outcome o = switch (step) {
            case "start" -> Outcome.next("reserve", new State(s.n(), s.seq() + 1, null, x.by()));
            case "reserve" -> Outcome.await(Set.of("paid"), "ship", new State(s.n(), s.seq() + 1, null, x.by()));
            case "ship" -> ctx.awaited().isEmpty()
                    ? Outcome.stop("woken without the paid signal")
                    : Outcome.next("finish", new State(s.n(), s.seq() + 1, ctx.awaited().get(0).payload().as(String.class),
                            x.by())).rateLimit("psp");
            case "finish" -> Outcome.done(Map.of("seq", s.seq() + 1, "paid", String.valueOf(s.paid()), "by", x.by()));
            default -> throw new IllegalStateException("unknown step " + step);
        };
        log.end(x);
        return o;
    }

    @Override
    public Outcome onError(String step, State state, StepContext ctx, Throwable error) {
        return Outcome.retry(Duration.ofMillis(200));  // the database will be back; keep the state
    }
}
