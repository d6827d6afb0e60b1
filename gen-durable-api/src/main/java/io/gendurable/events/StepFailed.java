package io.gendurable.events;

import java.time.Duration;

/**
 * A CDI event, fired asynchronously after a failed step's outcome committed: the step threw (or
 * its outcome could not be stored) and {@code onError} decided the outcome, or the instance
 * stopped. Observe it with {@code @ObservesAsync}.
 *
 * @param id       the instance
 * @param fsm      its FSM name
 * @param step     the step that ran
 * @param queue    its queue
 * @param outcome  the outcome committed (retry, stop, …)
 * @param error    the error text stored in {@code last_error}
 * @param duration time spent in the step's code
 */
public record StepFailed(long id, String fsm, String step, String queue, String outcome, String error,
                         Duration duration) implements EngineEvent {
}
