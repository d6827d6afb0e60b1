package io.gendurable.impl.trace;

/**
 * What a step's span records about the step, and the context stored with its instance.
 *
 * @param fsm     the FSM's name
 * @param step    the step
 * @param id      the instance id
 * @param attempt the attempt, 1 for the first run of the step
 * @param queue   the queue it runs on
 * @param stored  the W3C context stored at insert ({@link TraceContext#NONE}: none)
 */
public record StepAttributes(String fsm, String step, long id, int attempt, String queue, TraceContext stored) {
}
