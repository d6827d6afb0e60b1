package io.gendurable.impl.db;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

import javax.sql.DataSource;

/**
 * Installs and upgrades the schema with Flyway from {@code db/gendurable} in this jar, into the
 * engine's schema, with its own history table so it never mixes with the application's migrations.
 */
public final class Migrations {
    /** The engine's Flyway history table, inside the engine's schema. */
    public static final String HISTORY_TABLE = "gendurable_schema_history";
    /**
     * The schema version this code expects: the highest {@code V<n>__…} script in {@code db/gendurable}.
     * Readiness compares the history table with it; {@code MigrationsVersionTest} fails when a new
     * script is added without raising it.
     */
    public static final String EXPECTED_VERSION = "13";

    private Migrations() {
    }

    /** @return how many migrations were applied */
    public static int migrate(DataSource dataSource, SchemaName schema) {
        MigrateResult result = Flyway.configure(Migrations.class.getClassLoader())
                .dataSource(dataSource)
                .schemas(schema.name())
                .defaultSchema(schema.name())
                .createSchemas(true)
                .table(HISTORY_TABLE)
                .locations("classpath:db/gendurable")
                .baselineOnMigrate(false)
                .load()
                .migrate();
        return result.migrationsExecuted;
    }

    /**
     * Drops the schema and everything in it (test clean-up: {@code io.gendurable.testing}).
     *
     * @param dataSource the database
     * @param schema     the schema to drop
     */
    public static void dropSchema(DataSource dataSource, SchemaName schema) {
        try (java.sql.Connection c = dataSource.getConnection(); java.sql.Statement s = c.createStatement()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            s.execute("DROP SCHEMA IF EXISTS " + schema.name() + " CASCADE");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("could not drop schema " + schema.name() + ": " + e.getMessage(), e);
        }
    }
}
