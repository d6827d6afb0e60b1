package io.gendurable.impl.sql;

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
}
