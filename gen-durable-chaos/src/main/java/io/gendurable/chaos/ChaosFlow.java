package io.gendurable.chaos;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Inline execution, rate limits, K = 1 keys and await timeouts together: start → charge →
 * park run inline (each {@code next} commits its state and keeps the claim, the next step runs in
 * the same task), under a K = 1 key {@code flow:0..}, with charge rate-limited ({@link #RATE},
 * admitted on the inline path, or requeued when the bucket is empty); park awaits {@code nudge}
 * with a short {@link #TIMEOUT}; the driver nudges only every other flow, at a random moment, so
 * some waits end by the signal and some by the timeout. close finishes with
 * {@code {seq: 4, woke: "signal"|"timeout", nudge: <payload>}}.
 */
@DurableFsm(name = "chaos-flow", queue = ChaosFlow.QUEUE, maxAttempts = 100_000, inlineExecution = true)
public final class ChaosFlow implements Fsm<ChaosFlow.State> {
    /** The flows' queue. */
    public static final String QUEUE = "flows";
    /** The rate limit of the charge step (configured on every worker). */
    public static final String RATE = "burst";
    /** K = 1 keys {@code flow:0..KEYS-1}. */
    public static final int KEYS = 4;
    /** The await timeout of park. */
    public static final Duration TIMEOUT = Duration.ofMillis(700);
    /** The steps, in order. */
    public static final List<String> STEPS = List.of("start", "charge", "park", "close");

    /** @param n the flow number @param seq committed transitions @param by the execution that produced it */
    public record State(int n, int seq, String by) {
    }

    private final StepLog log;

    /** @param log the step log */
    public ChaosFlow(StepLog log) {
        this.log = log;
    }

    @Override
    public Outcome step(String step, State s, StepContext ctx) {
        StepLog.Execution x = log.begin(ctx);
        StepLog.work(5, 25);
        log.hold(ctx.id());
        Outcome o = switch (step) {
            case "start" -> Outcome.next("charge", new State(s.n(), s.seq() + 1, x.by())).rateLimit(RATE);
            case "charge" -> Outcome.next("park", new State(s.n(), s.seq() + 1, x.by()));
            case "park" -> Outcome.await(Set.of("nudge"), "close", new State(s.n(), s.seq() + 1, x.by()), TIMEOUT);
            case "close" -> {
                Map<String, Object> result = new HashMap<>();
                result.put("seq", s.seq() + 1);
                result.put("by", x.by());
                if (ctx.awaited().isEmpty()) {
                    result.put("woke", "timeout");
                } else {
                    result.put("woke", "signal");
                    result.put("nudge", ctx.awaited().get(0).payload().as(String.class));
                }
                yield Outcome.done(result);
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
