package io.gendurable.impl.sql;

import java.time.Instant;

/**
 * One row's transition for the batched flush.
 *
 * @param id          the row
 * @param worker      the claim it must still hold (the ownership guard)
 * @param claimedAttempt the attempt the step ran as: a reclaim bumps it, so even a re-claim by
 *                    the same worker makes the old outcome stale
 * @param status      the new status's database name
 * @param step        the new step, or null to keep it
 * @param setState    whether {@code stateJson} replaces the state
 * @param stateJson   the new state's JSON
 * @param attemptOp   what happens to {@code attempt}
 * @param eligibleAt  the new eligible instant, or null to keep it
 * @param setResult   whether {@code resultJson} is written
 * @param resultJson  the result's JSON
 * @param error       the error text, or null to keep the last one
 */
public record OutcomeRow(long id, String worker, int claimedAttempt, String status, String step, boolean setState, String stateJson,
                         AttemptOp attemptOp, Instant eligibleAt, boolean setResult, String resultJson, String error) {

    /** @return the outcome's kind for metrics: next, retry, done or stop */
    public String kind() {
        return switch (status) {
            case "done" -> "done";
            case "failed" -> "stop";
            default -> attemptOp == AttemptOp.INCREMENT ? "retry" : "next";
        };
    }

    /** How a transition changes {@code attempt}. */
    public enum AttemptOp {
        /** leave it (terminal outcomes) */
        KEEP,
        /** add one (retry) */
        INCREMENT,
        /** back to 1 (progress to another step) */
        RESET
    }
}
