package io.gendurable.impl.step;

import io.gendurable.impl.flush.Written;

import java.time.Instant;

/**
 * The slot a claimed step runs in, as its holder keeps it (a queue's scheduler; the test drain's
 * blocking adapter): the one contract between the holder and {@link StepRunner} along a chain of
 * steps. See docs/internals.md, "Group commit".
 */
public interface StepSlot {
    /**
     * Asked once each step's code has returned: a queue paused while it ran stops the chain there.
     *
     * @return whether the step's {@code next} may run inline in this slot
     */
    boolean mayChain();

    /**
     * Asked right before each step's code runs: a claim whose lease lapsed before its step started
     * may be another node's by now, and its step must not run a second time beside that node's.
     *
     * @param row the claim about to run
     * @return whether its lease is live (confirmed by a renewal when it is close to lapsing); false:
     * the step is not run and the chain ends as stale
     */
    default boolean live(ClaimedRow row) {
        return true;
    }

    /**
     * An inline continue moved the claim to a new fencing token (the heartbeat must present it).
     *
     * @param id         the row
     * @param from       the token of the claim the committed continue ended
     * @param to         the token of the next step's claim
     * @param leaseUntil the lease the continue wrote
     */
    default void moved(long id, long from, long to, Instant leaseUntil) {
    }

    /**
     * A timed-out step's code ignored its interrupt for the grace: its claim must no longer be
     * heartbeated. Called once, on the timer's thread, while the step's thread is still in its code.
     *
     * @param row the claim given up
     */
    default void abandon(ClaimedRow row) {
    }

    /**
     * The chain's code stopped (an inline continue, or its last outcome) and its outcome is queued
     * for the flusher: the slot may run another step while it commits.
     */
    default void codeDone() {
    }

    /**
     * An inline continue is durable: runs the chain's next step on a step thread of the holder's
     * choosing.
     *
     * @param next the chain's next step; it ends the chain itself ({@link #ended}), never throws
     */
    void resume(Runnable next);

    /**
     * Told exactly once what became of the chain's last outcome, in the thread that completed its
     * flush (or the step's own).
     *
     * @param result  what became of the outcome, or null when it could not be written
     * @param failure why it could not be written (the lease will expire; the reaper re-runs the step), or null
     */
    void ended(Written.Result result, Throwable failure);
}
