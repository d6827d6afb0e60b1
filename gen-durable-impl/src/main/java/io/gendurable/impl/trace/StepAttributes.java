package io.gendurable.impl.trace;

import java.util.List;

/**
 * What a step's span records about the step, the context stored with its instance, and the
 * contexts stored with the signals in its inbox.
 *
 * @param fsm     the FSM's name
 * @param step    the step
 * @param id      the instance id
 * @param attempt the attempt, 1 for the first run of the step
 * @param queue   the queue it runs on
 * @param stored  the W3C context stored at insert ({@link TraceContext#NONE}: none)
 * @param signals the signals the step is given that were sent with a span current (each becomes a
 *                span link), in delivery order; empty when none
 */
public record StepAttributes(String fsm, String step, long id, int attempt, String queue, TraceContext stored,
                             List<SignalLink> signals) {
    public StepAttributes {
        signals = List.copyOf(signals);
    }

    /** The attributes of a step whose inbox holds no traced signal (the parameters as the canonical constructor's). */
    public StepAttributes(String fsm, String step, long id, int attempt, String queue, TraceContext stored) {
        this(fsm, step, id, attempt, queue, stored, List.of());
    }

    /**
     * A signal in the step's inbox and the context of its sender.
     *
     * @param name the signal's name
     * @param id   the signal's id (its inbox row)
     * @param sent the W3C context current when it was sent
     */
    public record SignalLink(String name, long id, TraceContext sent) {
    }
}
