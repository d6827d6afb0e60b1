package io.gendurable.impl.insert;

import java.time.Instant;

/**
 * This node's queues that can start a new row at its insert ({@code gendurable.start-at-insert}):
 * the insert claims its own row for a free local slot in its own transaction (status
 * {@code executing}, this node's worker, a lease and a fresh fencing token, exactly as a claim
 * would leave it), and the row's step starts once that transaction commits. A pickup is then one
 * commit, the insert's, instead of two (the insert's, then a claim's after its poke).
 * The slot is reserved before the statement, so a queue never runs more than its concurrency;
 * a row the statement did not claim (a duplicate, a queue paused meanwhile, a failed
 * statement) gives its slot back.
 */
public interface InsertStarts {
    /** No queue starts rows at their insert: every new row waits for a claim. */
    InsertStarts NONE = queue -> null;

    /**
     * @param queue the new row's queue
     * @return a free slot of that queue on this node, reserved for the row; or null when the queue
     * is not served here, is paused, stopping, or busy (no free slot, or rows already in hand)
     */
    Slot reserve(String queue);

    /** One reserved slot: exactly one of {@link #claimed}, {@link #unconfirmed} and {@link #release} is called. */
    interface Slot {
        /** @return the worker the row is claimed for (stored in {@code locked_by}) */
        String worker();

        /**
         * The insert committed with the row claimed for {@link #worker()}: run its step.
         *
         * @param row        the row as inserted
         * @param id         its id
         * @param claimToken the fencing token its insert stamped
         * @param attempt    its attempt
         * @param insertedAt its {@code inserted_at}
         * @param leaseUntil the lease the insert's transaction wrote
         */
        void claimed(InsertSql.Row row, long id, long claimToken, int attempt, Instant insertedAt, Instant leaseUntil);

        /**
         * The insert's commit answer was lost: the row may be claimed for {@link #worker()}. Give it
         * back by its token (a no-op if the commit did not land), so it runs after a claim's poke
         * rather than after a whole lease and a burnt attempt; the slot is free again.
         */
        void unconfirmed(InsertSql.Row row, long id, long claimToken, int attempt, Instant insertedAt);

        /** The row was not claimed (or not inserted): the slot is free again. */
        void release();
    }
}
