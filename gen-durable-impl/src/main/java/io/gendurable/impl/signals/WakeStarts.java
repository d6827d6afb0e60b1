package io.gendurable.impl.signals;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * This node's queues that can start a row at the signal that wakes it
 * ({@code gendurable.start-at-insert}, which covers wake-ups too): in the signal's own transaction,
 * after the delivery has made the row runnable, the row is claimed by id for a free local slot
 * (with its inbox), and its step starts once that transaction commits. A wake-up is then one
 * commit, the signal's, instead of two (the signal's, then a claim's after its poke).
 */
public interface WakeStarts {
    /** No queue starts rows at their wake-up: every woken row waits for a claim. */
    WakeStarts NONE = queue -> null;

    /**
     * @param queue the woken row's queue
     * @return a free slot of that queue on this node, reserved for the row; or null when the queue
     * is not served here, is paused, stopping, or busy (no free slot, or rows already in hand)
     */
    Slot reserve(String queue);

    /** One reserved slot: {@link #claimIn} at most once, then exactly one of {@link #committed} and {@link #abandoned}. */
    interface Slot {
        /**
         * Claims the woken row on the signal's connection, inside its transaction.
         *
         * @param id the woken row
         * @return whether it was claimed (false: it needs a claim's checks, and the queue's claim takes it)
         * @throws SQLException when the statement fails (the signal's transaction fails with it)
         */
        boolean claimIn(Connection c, long id) throws SQLException;

        /** The signal's transaction committed: the claimed row runs; without one, the slot is free again. */
        void committed();

        /**
         * The signal's transaction failed: the slot is free again.
         *
         * @param mayHaveCommitted whether the commit's outcome is unknown: a claimed row is then given
         *                         back by its fencing token (a no-op if the commit did not land)
         */
        void abandoned(boolean mayHaveCommitted);
    }
}
