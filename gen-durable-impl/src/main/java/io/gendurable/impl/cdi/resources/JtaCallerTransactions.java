package io.gendurable.impl.cdi.resources;

import io.gendurable.impl.db.CallerTransactions;
import io.gendurable.impl.db.Db;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import javax.sql.DataSource;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Transactional enqueue in a Jakarta EE container: when the calling thread has an active JTA
 * transaction, inserts and signals run on a connection of the transactional DataSource named by
 * {@code gendurable.jta-datasource} (enlisted by the container, committed or rolled back with
 * the business transaction), and their pokes run after the commit. The engine's own DataSource
 * ({@code gendurable.datasource}) should be non-transactional, so the engine's statements never
 * enlist.
 */
public final class JtaCallerTransactions implements CallerTransactions {
    private static final Logger LOG = System.getLogger("io.gendurable.cdi");
    static final String REGISTRY = "java:comp/TransactionSynchronizationRegistry";

    private final TransactionSynchronizationRegistry registry;
    private final JndiLookup jndi;
    private final String dataSourceName;
    private volatile DataSource dataSource;

    private JtaCallerTransactions(TransactionSynchronizationRegistry registry, JndiLookup jndi, String dataSourceName) {
        this.registry = registry;
        this.jndi = jndi;
        this.dataSourceName = dataSourceName;
    }

    /** @return JTA-aware transactions when the container has a synchronization registry, else none */
    public static CallerTransactions lookup(JndiLookup jndi, String dataSourceName) {
        List<String> tried = new ArrayList<>();
        Optional<TransactionSynchronizationRegistry> tsr;
        try {
            tsr = jndi.find(REGISTRY, TransactionSynchronizationRegistry.class, tried);
        } catch (LinkageError e) {
            return CallerTransactions.NONE;  // no JTA API at all (plain Java SE)
        }
        return tsr.<CallerTransactions>map(r -> new JtaCallerTransactions(r, jndi, dataSourceName))
                .orElse(CallerTransactions.NONE);
    }

    @Override
    public Optional<Joined> active() {
        int status = registry.getTransactionStatus();
        if (status == Status.STATUS_NO_TRANSACTION) {
            return Optional.empty();
        }
        // A transaction marked rollback-only is still the caller's: join it, and roll back with it. Any
        // other status is a transaction that cannot be joined (timed out and rolled back by the
        // container, completing, unknown): writing outside it would commit on its own, while the
        // business writes are gone. Nothing is written.
        if (status != Status.STATUS_ACTIVE && status != Status.STATUS_MARKED_ROLLBACK) {
            throw new IllegalStateException("gen-durable was called inside a JTA transaction it cannot join: its status is "
                    + statusName(status) + (status == Status.STATUS_ROLLEDBACK || status == Status.STATUS_ROLLING_BACK
                    ? " (it timed out or was rolled back)" : "") + "; nothing was written. Call it in an active "
                    + "transaction, or with none (accepted: ACTIVE, MARKED_ROLLBACK, NO_TRANSACTION)");
        }
        return Optional.of(new Joined() {
            @Override
            public <T> T run(Db.Work<T> work) {
                try (Connection c = transactional().getConnection()) {
                    return work.run(c);
                } catch (SQLException e) {
                    throw new IllegalStateException("gen-durable statement in the caller's transaction failed: "
                            + e.getMessage(), e);
                }
            }

            @Override
            public void afterCommit(Runnable action) {
                registry.registerInterposedSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                    }

                    @Override
                    public void afterCompletion(int status) {
                        if (status == Status.STATUS_COMMITTED) {
                            try {
                                action.run();
                            } catch (RuntimeException e) {
                                LOG.log(Level.WARNING, "gen-durable: a post-commit poke failed (the poll will find "
                                        + "the work): " + e);
                            }
                        }
                    }
                });
            }
        });
    }

    private DataSource transactional() {
        DataSource ds = dataSource;
        if (ds == null) {
            List<String> tried = new ArrayList<>();
            ds = jndi.find(dataSourceName, DataSource.class, tried).orElseThrow(() -> new IllegalStateException(
                    "gen-durable was called inside a JTA transaction, which it joins through a transactional "
                            + "DataSource: set gendurable.jta-datasource to one (now '" + dataSourceName + "'); tried "
                            + tried));
            dataSource = ds;
        }
        return ds;
    }

    /** @return the name of a {@link Status} constant */
    static String statusName(int status) {
        return switch (status) {
            case Status.STATUS_ACTIVE -> "ACTIVE";
            case Status.STATUS_MARKED_ROLLBACK -> "MARKED_ROLLBACK";
            case Status.STATUS_PREPARED -> "PREPARED";
            case Status.STATUS_COMMITTED -> "COMMITTED";
            case Status.STATUS_ROLLEDBACK -> "ROLLEDBACK";
            case Status.STATUS_UNKNOWN -> "UNKNOWN";
            case Status.STATUS_NO_TRANSACTION -> "NO_TRANSACTION";
            case Status.STATUS_PREPARING -> "PREPARING";
            case Status.STATUS_COMMITTING -> "COMMITTING";
            case Status.STATUS_ROLLING_BACK -> "ROLLING_BACK";
            default -> "status " + status;
        };
    }
}
