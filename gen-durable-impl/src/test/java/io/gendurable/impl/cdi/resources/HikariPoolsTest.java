package io.gendurable.impl.cdi.resources;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.testing.SharedTestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's own pool (built from {@code gendurable.jdbc.url}) bounds every wait on the
 * database, connection attempts included: a {@code socketTimeout} of 60 s unless the URL sets
 * one. Without it, a server that accepts connections and never answers (an old primary frozen
 * or cut off) holds the pool's connection-opening thread forever (docs/reliability.md#failover).
 */
class HikariPoolsTest {

    private static String url(String extra) {
        String url = SharedTestDatabase.url();
        return extra == null ? url : url + (url.contains("?") ? "&" : "?") + extra;
    }

    @Test
    void a_url_without_a_socket_timeout_gets_the_default() throws Exception {
        try (HikariDataSource ds = HikariPools.open(url(null), null, null, 1, "pools-test");
             Connection c = ds.getConnection()) {
            assertThat(c.getNetworkTimeout()).isEqualTo(HikariPools.DEFAULT_SOCKET_TIMEOUT_SECONDS * 1000);
        }
    }

    @Test
    void a_socket_timeout_in_the_url_wins() throws Exception {
        try (HikariDataSource ds = HikariPools.open(url("socketTimeout=7"), null, null, 1, "pools-test");
             Connection c = ds.getConnection()) {
            assertThat(c.getNetworkTimeout()).isEqualTo(7_000);
        }
        try (HikariDataSource ds = HikariPools.open(url("socketTimeout=0"), null, null, 1, "pools-test");
             Connection c = ds.getConnection()) {
            assertThat(c.getNetworkTimeout()).isZero();
        }
    }
}
