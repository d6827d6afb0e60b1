package io.gendurable;

import java.util.Locale;

/**
 * The lifecycle of an instance. The whole protocol is flips of this value:
 * {@code RUNNABLE → EXECUTING → AWAITING_SIGNAL | AWAITING_CHILDREN | DONE | FAILED}, and
 * {@code CANCELLED} when an operator cancels a live instance ({@link DurableOperations#cancel}).
 */
public enum Status {
    /** Waiting to be picked (possibly not before its {@code eligibleAt}). */
    RUNNABLE,
    /** Claimed by a worker; its step is running or buffered. */
    EXECUTING,
    /** Parked until one of the awaited signals arrives, or the await deadline passes. */
    AWAITING_SIGNAL,
    /** Parked until every child it fanned out has terminated. */
    AWAITING_CHILDREN,
    /** Finished with a result. Terminal. */
    DONE,
    /** Stopped with an error. Terminal. */
    FAILED,
    /**
     * Cancelled by an operator while it was live ({@link DurableOperations#cancel}), with the
     * reason in its last error. Terminal; told apart from {@link #FAILED}; a waiting parent counts
     * it as finished (not succeeded), like a failed child.
     */
    CANCELLED;

    private final String dbName = name().toLowerCase(Locale.ROOT);

    /** @return true for {@link #DONE}, {@link #FAILED} and {@link #CANCELLED}. */
    public boolean isTerminal() {
        return this == DONE || this == FAILED || this == CANCELLED;
    }

    /** @return the value stored in the database ({@code durable_status}), e.g. {@code awaiting_signal}. */
    public String dbName() {
        return dbName;
    }

    /**
     * @param dbName a {@code durable_status} value as stored in the database
     * @return the matching status
     * @throws IllegalArgumentException naming the accepted values when there is none
     */
    public static Status fromDb(String dbName) {
        for (Status s : values()) {
            if (s.dbName().equals(dbName)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown status '" + dbName
                + "'; accepted: runnable, executing, awaiting_signal, awaiting_children, done, failed, cancelled");
    }
}
