package io.gendurable.events;

import java.time.Duration;

/**
 * A CDI event, fired asynchronously after a step's outcome committed (observe it with
 * {@code @ObservesAsync}).
 *
 * @param id       the instance
 * @param fsm      its FSM name
 * @param step     the step that ran
 * @param queue    its queue
 * @param outcome  next, retry, await, schedule_children or done
 * @param duration time spent in the step's code
 */
public record StepCompleted(long id, String fsm, String step, String queue, String outcome, Duration duration)
        implements EngineEvent {
}
