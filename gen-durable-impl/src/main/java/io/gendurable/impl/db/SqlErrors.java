package io.gendurable.impl.db;

import java.sql.SQLException;

/** Reads PostgreSQL SQLSTATEs through whatever wraps them (Hibernate, the pool, the container). */
public final class SqlErrors {
    private SqlErrors() {
    }

    /**
     * @param e a failure
     * @return whether a unique or primary-key constraint (23505) refused the write: the constraint
     * settled a race, and the caller retries against the winner's committed rows
     */
    /** @return whether {@code e} or a cause is a lock wait that ran out ({@code lock_timeout}, SQLSTATE 55P03) */
    public static boolean isLockTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && "55P03".equals(s.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /** @return whether {@code e} or a cause is a unique violation (SQLSTATE 23505) */
    public static boolean isUniqueViolation(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && "23505".equals(s.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
