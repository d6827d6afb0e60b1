package io.gendurable.impl.flush;

import java.time.Instant;

/**
 * One step history record as the flush writes it, in the transaction that commits its step's
 * outcome, only when that outcome committed (a stale outcome leaves no record).
 *
 * @param claim      the claim the outcome belongs to: the record is written only if that very claim's
 *                   outcome commits
 * @param step       the step that ran
 * @param attempt    its attempt
 * @param outcome    the outcome's label (next, retry, await, schedule_children, done, stop)
 * @param startedAt  when the step's code started
 * @param finishedAt when it returned
 * @param node       the node that ran it
 * @param error      the failure handed to onError, or null
 * @param stateJson  the committed state (with {@code history.include-state}), or null
 */
public record StepHistory(Transition.Claim claim, String step, int attempt, String outcome, Instant startedAt,
                          Instant finishedAt, String node, String error, String stateJson) {
    /** @return the instance */
    public long instanceId() {
        return claim.id();
    }
}
