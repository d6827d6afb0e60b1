package io.gendurable;

import java.time.Instant;

/**
 * One committed step of an instance, from its step history ({@link InstanceDetails#history()}),
 * written in the same transaction as the step's outcome when history is on for its FSM
 * ({@code gendurable.history.enabled}, or {@link DurableFsm#history()}).
 *
 * @param step       the step that ran
 * @param attempt    its attempt
 * @param outcome    what it decided: next, retry, await, schedule_children, done or stop
 * @param startedAt  when the step's code started, by the engine's clock
 * @param finishedAt when it returned
 * @param node       the node that ran it ({@code gendurable.node-id})
 * @param error      the failure handed to {@code onError}, or null
 * @param state      the state the outcome committed, when {@code gendurable.history.include-state}
 *                   is on; otherwise null
 */
public record StepRecord(String step, int attempt, String outcome, Instant startedAt, Instant finishedAt, String node,
                         String error, DurableValue state) {
}
