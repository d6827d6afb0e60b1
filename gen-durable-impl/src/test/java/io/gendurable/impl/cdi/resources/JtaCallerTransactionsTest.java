package io.gendurable.impl.cdi.resources;

import io.gendurable.impl.db.CallerTransactions;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.naming.NameNotFoundException;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code gendurable.jta-datasource} is looked up at the first call inside a JTA transaction. */
class JtaCallerTransactionsTest {

    /** A synchronization registry whose transaction has a given status (a stand-in for the container's). */
    static class StatusRegistry implements TransactionSynchronizationRegistry {
        private final int status;

        StatusRegistry(int status) {
            this.status = status;
        }

        @Override public Object getTransactionKey() { return "tx"; }
        @Override public void putResource(Object key, Object value) { }
        @Override public Object getResource(Object key) { return null; }
        @Override public void registerInterposedSynchronization(Synchronization sync) { }
        @Override public int getTransactionStatus() { return status; }
        @Override public void setRollbackOnly() { }
        @Override public boolean getRollbackOnly() { return false; }
    }

    /**
     * A transaction the container timed out and rolled back is left on the thread as ROLLEDBACK
     * (issue 44, item 2); any status but ACTIVE and MARKED_ROLLBACK read as "no transaction", so the
     * insert or signal autocommitted on the engine's own DataSource while the business writes were
     * gone. Now only NO_TRANSACTION means none, and a status that cannot be joined throws, naming it.
     */
    @ParameterizedTest
    @ValueSource(ints = {Status.STATUS_ROLLEDBACK, Status.STATUS_ROLLING_BACK,
            Status.STATUS_UNKNOWN, Status.STATUS_PREPARING, Status.STATUS_PREPARED, Status.STATUS_COMMITTING,
            Status.STATUS_COMMITTED})
    void a_transaction_that_cannot_be_joined_is_never_read_as_none(int status) {
        JndiLookup jndi = name -> {
            if (name.equals(JtaCallerTransactions.REGISTRY)) {
                return new StatusRegistry(status);
            }
            throw new NameNotFoundException(name);
        };
        CallerTransactions tx = JtaCallerTransactions.lookup(jndi, "jdbc/gendurableTx");
        assertThatThrownBy(tx::active).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot join").hasMessageContaining(JtaCallerTransactions.statusName(status))
                .hasMessageContaining("nothing was written");
    }

    @Test
    void no_transaction_is_none_and_a_rollback_only_one_is_joined() {
        for (int status : new int[] {Status.STATUS_NO_TRANSACTION, Status.STATUS_MARKED_ROLLBACK, Status.STATUS_ACTIVE}) {
            JndiLookup jndi = name -> {
                if (name.equals(JtaCallerTransactions.REGISTRY)) {
                    return new StatusRegistry(status);
                }
                throw new NameNotFoundException(name);
            };
            assertThat(JtaCallerTransactions.lookup(jndi, "jdbc/gendurableTx").active().isPresent())
                    .as(JtaCallerTransactions.statusName(status)).isEqualTo(status != Status.STATUS_NO_TRANSACTION);
        }
    }

    /** A synchronization registry whose transaction is always active (a stand-in for the container's). */
    static final class ActiveRegistry implements TransactionSynchronizationRegistry {
        @Override public Object getTransactionKey() { return "tx"; }
        @Override public void putResource(Object key, Object value) { }
        @Override public Object getResource(Object key) { return null; }
        @Override public void registerInterposedSynchronization(Synchronization sync) { }
        @Override public int getTransactionStatus() { return Status.STATUS_ACTIVE; }
        @Override public void setRollbackOnly() { }
        @Override public boolean getRollbackOnly() { return false; }
    }

    @Test
    void a_jta_datasource_name_that_does_not_resolve_fails_the_transactional_call_naming_the_key_and_runs_nothing() {
        ActiveRegistry registry = new ActiveRegistry();
        JndiLookup jndi = name -> {
            if (name.equals(JtaCallerTransactions.REGISTRY)) {
                return registry;
            }
            throw new NameNotFoundException(name);
        };
        CallerTransactions tx = JtaCallerTransactions.lookup(jndi, "jdbc/missingTx");
        Optional<CallerTransactions.Joined> joined = tx.active();
        assertThat(joined).isPresent();
        boolean[] ran = {false};

        assertThatThrownBy(() -> joined.get().run(c -> ran[0] = true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("gendurable.jta-datasource").hasMessageContaining("jdbc/missingTx");
        assertThat(ran[0]).isFalse();
    }
}
