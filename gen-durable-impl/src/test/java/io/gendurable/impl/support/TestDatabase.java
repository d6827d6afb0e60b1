package io.gendurable.impl.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tests' PostgreSQL: the server named by {@code GENDURABLE_TEST_DB_URL} when set (for
 * example {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}), else one embedded
 * server per test JVM. Each test gets its own schema.
 */
public final class TestDatabase {
    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static volatile String url;

    private TestDatabase() {
    }

    /** @return the JDBC URL of the tests' database (starting the embedded one when needed) */
    public static synchronized String url() {
        if (url == null) {
            String configured = System.getenv("GENDURABLE_TEST_DB_URL");
            if (configured != null && !configured.isBlank()) {
                url = configured;
            } else {
                try {
                    EmbeddedPostgres pg = EmbeddedPostgres.builder()
                            .setServerConfig("max_connections", "300")
                            .setServerConfig("fsync", "off")
                            .start();
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                        try {
                            pg.close();
                        } catch (IOException ignored) {
                            // the JVM is going away
                        }
                    }));
                    url = pg.getJdbcUrl("postgres", "postgres");
                } catch (IOException e) {
                    throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
                }
            }
        }
        return url;
    }

    /** @return a fresh schema name, unique in this JVM run */
    public static String newSchema(String hint) {
        String base = hint.toLowerCase().replaceAll("[^a-z0-9_]", "_");
        if (base.length() > 40) {
            base = base.substring(0, 40);
        }
        return "t_" + base + "_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
    }

    /** @return a pooled DataSource on the tests' database */
    public static HikariDataSource dataSource(int maxPool) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url());
        if (!url().contains("user=")) {
            c.setUsername("postgres");
        }
        c.setMaximumPoolSize(maxPool);
        c.setMinimumIdle(1);
        c.setConnectionTimeout(30_000);
        return new HikariDataSource(c);
    }

    /** Runs DDL or DML outside the engine. */
    public static void exec(javax.sql.DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Reads one long. */
    public static long queryLong(javax.sql.DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
