package io.gendurable.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The project's own tests' one door to their PostgreSQL: the test kit's database (package-private
 * there), so that the engine tests and the kit's tests share one embedded server (or the one named
 * by {@code GENDURABLE_TEST_DB_URL}, for example
 * {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}) and one schema-naming scheme per
 * JVM. Each test gets its own schema; a test that needs its own pool asks {@link #dataSource(int)}.
 */
public final class SharedTestDatabase {
    private SharedTestDatabase() {
    }

    /** @return the JDBC URL of the one test database of this JVM (starting the embedded one when needed) */
    public static String url() {
        return TestDatabase.url();
    }

    /** @return a fresh schema name, unique in this JVM and across JVMs running at once */
    public static String newSchema(String hint) {
        return TestDatabase.newSchema(hint);
    }

    /** @return the kit's shared pool on that database (the one its engines use) */
    public static DataSource dataSource() {
        return TestDatabase.dataSource();
    }

    /** @return a new pool of at most {@code maxPool} connections on that database; the caller closes it */
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
    public static void exec(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Reads one long. */
    public static long queryLong(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
