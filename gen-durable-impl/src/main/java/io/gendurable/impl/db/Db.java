package io.gendurable.impl.db;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import java.sql.PreparedStatement;
import javax.sql.DataSource;
import org.hibernate.Session;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Function;

/**
 * The engine's own access to PostgreSQL: short resource-local transactions, never a caller's JTA
 * transaction. {@link #inTransaction} runs plain JDBC on a connection of the engine's DataSource
 * (statements are static SQL binding JDBC arrays); the persistence unit serves the entity reads
 * (the operations API's search) and, without a DataSource, the transactions through its session.
 *
 * <p>Every transaction of {@link #inTransaction} first sets the planner for its own statements
 * ({@link #PLANNER_SETTINGS}, transaction-local). The driver prepares the engine's statements on
 * the server, and PostgreSQL then settles on a generic plan that the pool's connection keeps for
 * its life; planned while the table held a few rows (a first deployment, a fresh schema), that
 * plan scans the table, and nothing replans it until an {@code ANALYZE}. With sequential scans
 * off, every plan reaches rows through the indexes whatever the table's size when it was planned
 * ({@code EmptyTablePlanTest}), and JIT is off.
 */
public final class Db implements AutoCloseable {
    /**
     * The longest the engine waits for any answer of the database inside one of its transactions
     * ({@link #inTransaction}): a statement, or the commit. Past it the driver drops the
     * connection (the transaction rolls back, or the commit's outcome is unknown) and the next
     * transaction takes a new one, which a multi-host URL ({@code targetServerType=primary})
     * opens on the current primary. Without it, an old primary cut off from the network (silent
     * sockets) or a commit waiting for a synchronous standby that is gone would hold the thread
     * forever. Applied only to a connection that carries no timeout of its own: a
     * {@code socketTimeout} in the JDBC URL or the DataSource's properties wins
     * (docs/reliability.md).
     */
    public static final int NETWORK_TIMEOUT_MILLIS = 60_000;

    private final EntityManagerFactory emf;
    private final DataSource dataSource;
    private final int networkTimeoutMillis;

    /** @param emf the engine's persistence unit: entity reads, and {@link #inTransaction} on its connections */
    public Db(EntityManagerFactory emf) {
        this(emf, null);
    }

    /**
     * @param emf        the engine's persistence unit, for entity reads
     * @param dataSource the DataSource under it: {@link #inTransaction} takes its connections directly
     *                   (no Hibernate session per transaction); null: through the persistence unit
     */
    public Db(EntityManagerFactory emf, DataSource dataSource) {
        this(emf, dataSource, NETWORK_TIMEOUT_MILLIS);
    }

    /**
     * @param emf                  the engine's persistence unit, for entity reads
     * @param dataSource           the DataSource under it, or null
     * @param networkTimeoutMillis the bound of {@link #NETWORK_TIMEOUT_MILLIS} (tests shorten it)
     */
    Db(EntityManagerFactory emf, DataSource dataSource, int networkTimeoutMillis) {
        this.emf = emf;
        this.dataSource = dataSource;
        this.networkTimeoutMillis = networkTimeoutMillis;
    }

    /**
     * The planner settings of the engine's transactions, for the rest of each transaction, in one
     * statement that cannot fail:
     * <ul>
     *   <li>sequential scans off: an index path wins wherever one exists, whatever the table's
     *       size and statistics when the statement was planned;</li>
     *   <li>JIT off: a statement left with a disabled scan (a small table without a usable
     *       index) is costed past {@code jit_above_cost} and would be compiled on each execution,
     *       tens of milliseconds.</li>
     *   <li>custom plans only: each execution is planned for the table as it is now. PostgreSQL
     *       would otherwise settle, after five executions, on a generic plan made for the table
     *       as it was then, and a pooled connection keeps it: one made while the table holds a
     *       few rows walks the whole primary key per outcome once the table grows (in Open
     *       Liberty, PostgreSQL ~280 µs a job instead of ~45; {@code ServerPrepareTest}). A forced
     *       generic plan is a third slower.</li>
     * </ul>
     */
    public static final String PLANNER_SETTINGS = "SELECT set_config('enable_seqscan', 'off', true),"
            + " set_config('jit', 'off', true), set_config('plan_cache_mode', 'force_custom_plan', true)";

    /** Work on the transaction's connection. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} in one transaction: committed when it returns, rolled back when it throws.
     * A statement's failure reaches the caller as an {@link SqlFailure} whose cause is the
     * driver's {@link SQLException}. It does not pass through Hibernate's exception conversion,
     * which logs every SQL error at WARN and ERROR: the engine decides what its failures mean
     * (expected K = 1 contention is not an error) and logs them in its own categories.
     */
    public <T> T inTransaction(Work<T> work) {
        return inTransaction(work, true);
    }

    /**
     * {@link #inTransaction} without the engine's {@link #PLANNER_SETTINGS}: for a transaction whose
     * statements reach rows only through unique-index probes (an insert), where the settings'
     * statement would be one round trip more per call for nothing.
     *
     * @param work the transaction's work
     * @return what {@code work} returned
     */
    public <T> T inPlainTransaction(Work<T> work) {
        return inTransaction(work, false);
    }

    private <T> T inTransaction(Work<T> work, boolean planned) {
        Work<T> w = planned ? c -> {
            applyPlannerSettings(c);
            return work.run(c);
        } : work;
        if (dataSource != null) {
            return onConnection(w);
        }
        return withEntityManager(em -> em.unwrap(Session.class).doReturningWork(c -> {
            try {
                return w.run(c);
            } catch (SQLException e) {
                throw new SqlFailure(e);
            }
        }));
    }

    /**
     * {@link #inTransaction} on a connection of the DataSource itself: the claim, the flush and the
     * heartbeat are plain JDBC, and a Hibernate session (persistence context, action queue, JDBC
     * coordinator) built and torn down around each of them was measurable per-job work.
     */
    private <T> T onConnection(Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean bounded = bound(c);
            try {
                return onConnection(c, work);
            } finally {
                if (bounded) {
                    unbound(c);
                }
            }
        } catch (SQLException e) {
            throw new SqlFailure(e);  // getConnection or close
        }
    }

    /**
     * Applies {@link #NETWORK_TIMEOUT_MILLIS} to a connection that has no network timeout.
     *
     * @return whether it did (and {@link #unbound} must clear it before the connection goes back)
     */
    private boolean bound(Connection c) {
        try {
            if (networkTimeoutMillis > 0 && c.getNetworkTimeout() == 0) {
                c.setNetworkTimeout(Runnable::run, networkTimeoutMillis);
                return true;
            }
        } catch (SQLException | AbstractMethodError | UnsupportedOperationException e) {
            // a DataSource whose connections cannot take one: its own settings are the only bound
        }
        return false;
    }

    private static void unbound(Connection c) {
        try {
            if (!c.isClosed()) {
                c.setNetworkTimeout(Runnable::run, 0);
            }
        } catch (SQLException | AbstractMethodError | UnsupportedOperationException ignored) {
            // a broken connection: the pool evicts it
        }
    }

    private <T> T onConnection(Connection c, Work<T> work) {
        try {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            try {
                T result = work.run(c);
                try {
                    c.commit();
                } catch (SQLException e) {
                    throw new UnknownCommitException(new SqlFailure(e));
                }
                return result;
            } catch (SQLException | RuntimeException e) {
                if (!(e instanceof UnknownCommitException)) {
                    try {
                        c.rollback();
                    } catch (SQLException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                if (e instanceof SQLException sql) {
                    throw new SqlFailure(sql);
                }
                throw (RuntimeException) e;
            } finally {
                if (autoCommit) {
                    try {
                        c.setAutoCommit(true);
                    } catch (SQLException ignored) {
                        // the pool resets or evicts it
                    }
                }
            }
        } catch (SQLException e) {
            throw new SqlFailure(e);  // getAutoCommit
        }
    }

    /**
     * Applies {@link #PLANNER_SETTINGS} to the rest of the connection's current transaction.
     *
     * @param c a connection in a transaction
     * @throws SQLException when the statement fails
     */
    public static void applyPlannerSettings(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(PLANNER_SETTINGS)) {
            ps.execute();
        }
    }

    /** A statement of the engine's failed; the cause is the driver's {@link SQLException}. */
    public static final class SqlFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SqlFailure(SQLException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /**
     * Runs {@code work} with an entity manager inside one transaction (reads through entities).
     * A failure of the commit itself is an {@link UnknownCommitException}: it may have been applied.
     */
    public <T> T withEntityManager(Function<EntityManager, T> work) {
        EntityManager em = emf.createEntityManager();
        EntityTransaction tx = em.getTransaction();
        try {
            tx.begin();
            T result = work.apply(em);
            try {
                tx.commit();
            } catch (RuntimeException e) {
                throw new UnknownCommitException(e);
            }
            return result;
        } catch (RuntimeException e) {
            if (tx.isActive()) {
                try {
                    tx.rollback();
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        } finally {
            em.close();
        }
    }

    @Override
    public void close() {
        if (emf.isOpen()) {
            emf.close();
        }
    }
}
