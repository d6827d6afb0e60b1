package io.gendurable.impl.cdi;

import io.gendurable.impl.db.CallerTransactions;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import org.junit.jupiter.api.Test;

import javax.naming.NameNotFoundException;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code gendurable.jta-datasource} is looked up at the first call inside a JTA transaction. */
class JtaCallerTransactionsTest {

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
