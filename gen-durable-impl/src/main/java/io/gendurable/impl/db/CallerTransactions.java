package io.gendurable.impl.db;


import java.util.Optional;

/**
 * The caller's transaction, when the container has one active on the calling thread: inserts
 * and signals join it (transactional enqueue: the row exists iff the business transaction
 * commits). Outside one they autocommit. The engine's own statements never use this.
 */
public interface CallerTransactions {

    /** @return the calling thread's active transaction, if any */
    Optional<Joined> active();

    /** A transaction owned by the caller: the engine writes in it but never commits it. */
    interface Joined {
        /**
         * @param work statements to run on a connection enlisted in the caller's transaction
         * @param <T>  the result type
         * @return what the work returned
         */
        <T> T run(Db.Work<T> work);

        /** @param action runs after the caller's transaction commits; never on rollback */
        void afterCommit(Runnable action);
    }

    /** No container transactions: every call autocommits. */
    CallerTransactions NONE = Optional::empty;
}
