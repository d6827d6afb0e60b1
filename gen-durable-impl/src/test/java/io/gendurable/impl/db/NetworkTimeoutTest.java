package io.gendurable.impl.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.testing.SharedTestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every transaction of the engine has a bound on the database's answer ({@link Db#NETWORK_TIMEOUT_MILLIS}):
 * a server that stops answering (an old primary cut off, a commit waiting for a synchronous
 * standby that is gone) fails the transaction instead of holding its thread forever. A socket
 * timeout of the connection's own (the URL's {@code socketTimeout}) wins.
 */
class NetworkTimeoutTest {

    private static HikariDataSource pool(String extra) {
        HikariConfig c = new HikariConfig();
        String url = SharedTestDatabase.url();
        c.setJdbcUrl(extra == null ? url : url + (url.contains("?") ? "&" : "?") + extra);
        c.setMaximumPoolSize(1);
        c.setPoolName("network-timeout-test");
        return new HikariDataSource(c);
    }

    @Test
    void a_statement_that_gets_no_answer_within_the_bound_fails_and_the_next_transaction_gets_a_new_connection() {
        try (HikariDataSource ds = pool(null)) {
            Db db = new Db(null, ds, 1_000);
            long t0 = System.nanoTime();
            // the server answers after 5 s: past the 1 s bound
            assertThatThrownBy(() -> db.inPlainTransaction(c -> {
                try (Statement s = c.createStatement()) {
                    return s.execute("SELECT pg_sleep(5)");
                }
            })).isInstanceOf(Db.SqlFailure.class).hasMessageContaining("I/O error");
            assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(4_000);
            int pid = db.inPlainTransaction(c -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                    rs.next();
                    return rs.getInt(1);
                }
            });
            assertThat(pid).isPositive();
        }
    }

    @Test
    void the_bound_holds_inside_the_transaction_only_and_a_socket_timeout_of_the_url_wins() throws Exception {
        try (HikariDataSource ds = pool(null)) {
            Db db = new Db(null, ds);
            assertThat(db.inPlainTransaction(java.sql.Connection::getNetworkTimeout)).isEqualTo(Db.NETWORK_TIMEOUT_MILLIS);
            try (java.sql.Connection c = ds.getConnection()) {
                assertThat(c.getNetworkTimeout()).isZero();
            }
        }
        try (HikariDataSource ds = pool("socketTimeout=7")) {
            Db db = new Db(null, ds);
            assertThat(db.inPlainTransaction(java.sql.Connection::getNetworkTimeout)).isEqualTo(7_000);
        }
    }
}
