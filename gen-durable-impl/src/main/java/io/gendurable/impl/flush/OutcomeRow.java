package io.gendurable.impl.flush;

import io.gendurable.impl.insert.InsertSql;

import java.time.Instant;
import java.util.List;

/**
 * One row's transition for the batched flush, with its riders.
 *
 * @param id             the row
 * @param worker         the worker that holds the claim
 * @param claimToken     the claim's fencing token: the row commits only while it still carries
 *                       it (every claim and inline continue stamps a new one, every release,
 *                       reap and flush clears it), so an outcome of any earlier claim is stale
 * @param status         the new status's database name
 * @param step           the new step, or null to keep it
 * @param setState       whether {@code stateJson} replaces the state
 * @param stateJson      the new state's JSON
 * @param attemptOp      what happens to {@code attempt}
 * @param eligibleAt     the new eligible instant, or null to keep it
 * @param setResult      whether {@code resultJson} is written
 * @param resultJson     the result's JSON
 * @param error          the error text, or null to keep the last one
 * @param awaitsOp       what happens to {@code awaits}
 * @param awaits         the names to await (with {@link AwaitsOp#SET})
 * @param awaitDeadline  the await deadline (with {@link AwaitsOp#SET}), or null for none
 * @param consume        signal ids to delete from the inbox once committed (progress)
 * @param clearInbox     whether the whole inbox goes once committed (terminal outcomes)
 * @param presented      the awaited signal ids the step was woken with: a park's recheck ignores them
 * @param parentId       the parent to decrement when this terminal outcome commits, or null
 * @param children       the children a fan-out inserts once committed
 * @param setRate        whether {@code rateLimit} and {@code weight} replace the row's (progress outcomes)
 * @param rateLimit      the next step's rate-limit key, or null
 * @param weight         the next step's weight
 * @param keyOp          what happens to the concurrency key: KEEP, RELEASE or SWITCH
 * @param newKey         the new key with SWITCH
 * @param slotKey        the gate key whose slot this row holds (credited once committed), or null
 * @param slotShard      that slot's shard
 * @param keepLock       an inline continue: the row stays executing under the same worker, its
 *                       lease extended to {@code leaseUntil}, and the next step runs in the same task
 * @param leaseUntil     the extended lease of an inline continue
 */
public record OutcomeRow(long id, String worker, long claimToken, String status, String step, boolean setState,
                         String stateJson, AttemptOp attemptOp, Instant eligibleAt, boolean setResult,
                         String resultJson, String error, AwaitsOp awaitsOp, List<String> awaits,
                         Instant awaitDeadline, List<Long> consume, boolean clearInbox, List<Long> presented,
                         Long parentId, List<InsertSql.Row> children, boolean setRate, String rateLimit,
                         int weight, String keyOp, String newKey, String slotKey, Integer slotShard,
                         boolean keepLock, Instant leaseUntil) {

    /** Copies the lists. */
    public OutcomeRow {
        awaits = awaits == null ? List.of() : List.copyOf(awaits);
        consume = consume == null ? List.of() : List.copyOf(consume);
        presented = presented == null ? List.of() : List.copyOf(presented);
        children = children == null ? List.of() : List.copyOf(children);
        keyOp = keyOp == null ? "KEEP" : keyOp;
    }

    /** @return whether this outcome fans out children and parks for the join */
    public boolean fansOut() {
        return "awaiting_children".equals(status);
    }

    /** @return the outcome's kind for metrics: next, retry, await, done or stop */
    public String kind() {
        return switch (status) {
            case "done" -> "done";
            case "failed" -> "stop";
            case "awaiting_signal" -> "await";
            case "awaiting_children" -> "schedule_children";
            case "executing" -> "next_inline";
            default -> attemptOp == AttemptOp.INCREMENT ? "retry" : "next";
        };
    }

    /** @return whether this outcome parks the row awaiting signals */
    public boolean parks() {
        return "awaiting_signal".equals(status);
    }

    /** @return whether this outcome ends the instance */
    public boolean terminal() {
        return "done".equals(status) || "failed".equals(status);
    }

    /** How a transition changes {@code attempt}. */
    public enum AttemptOp {
        /** leave it (terminal outcomes) */
        KEEP,
        /** add one (retry) */
        INCREMENT,
        /** back to 1 (progress to another step, or a park) */
        RESET
    }

    /** How a transition changes {@code awaits} and {@code await_deadline}. */
    public enum AwaitsOp {
        /** leave them (retry: the woken step runs again with the same awaited signals) */
        KEEP,
        /** clear them (progress, terminal) */
        CLEAR,
        /** set them (a park) */
        SET
    }
}
