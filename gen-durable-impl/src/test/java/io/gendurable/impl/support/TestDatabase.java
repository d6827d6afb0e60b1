package io.gendurable.impl.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.testing.SharedTestDatabase;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The engine tests' PostgreSQL: the test kit's one database per JVM (the server named by
 * {@code GENDURABLE_TEST_DB_URL} when set, for example
 * {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}, else one embedded server shared
 * with the kit's own tests). Each test gets its own schema and its own pool.
 */
public final class TestDatabase {
    private TestDatabase() {
    }

    /** @return the JDBC URL of the tests' database (starting the embedded one when needed) */
    public static String url() {
        return SharedTestDatabase.url();
    }

    /** @return a fresh schema name, unique in this JVM run */
    public static String newSchema(String hint) {
        return SharedTestDatabase.newSchema(hint);
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
