package io.gendurable.impl.flush;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * What a {@link Flusher} tells around each flush transaction: the engine's after-commit work, and
 * each queue whose next claim may ride the flush (docs/internals.md, "Group commit"). Every
 * method is optional.
 */
public interface FlushListener {
    /**
     * Asked at the start of each flush transaction, by a queue that may claim its next rows in it:
     * a busy queue then pays one commit for its outcomes and its next claim instead of two.
     *
     * @return the claim to run as that transaction's first statement, or null (the queue is not
     * busy, has too few free slots, or its own claim is under way)
     */
    default ClaimInFlush claimInFlush() {
        return null;
    }

    /**
     * Told after each commit, before the step threads resume: pokes and await waiters.
     *
     * @param committed the committed transitions (stale ones excluded)
     * @param flushed   what the riders did: rows they made runnable, queues that got children
     */
    default void committed(List<Transition> committed, FlushSql.Flushed flushed) {
    }

    /** Told after each flush transaction ended (committed or not): a claim left to the next flush may run now. */
    default void flushEnded() {
    }

    /** One claim in a flush transaction; exactly one of {@link #committed} and {@link #abandoned} follows {@link #claim}. */
    interface ClaimInFlush {
        /**
         * Claims, on the flush's connection, before any statement of the flush (so it holds nothing
         * else when it meets another claim's locks or unique entries, as a claim of its own would).
         */
        void claim(Connection c) throws SQLException;

        /** The transaction committed: the claimed rows are this node's. */
        void committed();

        /**
         * The transaction did not commit, or may not have.
         *
         * @param mayHaveCommitted the commit's fate is unknown: the claimed rows may be executing
         *                         under this worker and must be given back by their tokens
         */
        void abandoned(boolean mayHaveCommitted);
    }
}
