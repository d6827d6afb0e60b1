package io.gendurable.testing;

import javax.sql.DataSource;

/**
 * The project's own tests' door to the test kit's database (package-private there), so that the
 * engine tests and the kit's tests share one embedded PostgreSQL (or the server named by
 * {@code GENDURABLE_TEST_DB_URL}) and one schema-naming scheme per JVM.
 */
public final class SharedTestDatabase {
    private SharedTestDatabase() {
    }

    /** @return the JDBC URL of the one test database of this JVM */
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
}
