package io.gendurable.impl.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Set;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

import javax.sql.DataSource;

/**
 * Installs and upgrades the schema with Flyway from {@code db/gendurable} in this jar, into the
 * engine's schema, with its own history table so it never mixes with the application's migrations.
 * The schema may hold the application's own objects before the engine's first start.
 */
public final class Migrations {
    /** The engine's Flyway history table, inside the engine's schema. */
    public static final String HISTORY_TABLE = "gendurable_schema_history";
    /**
     * The schema version this code expects: the highest {@code V<n>__…} script in {@code db/gendurable}.
     * Readiness compares the history table with it; {@code MigrationsVersionTest} fails when a new
     * script is added without raising it.
     */
    public static final String EXPECTED_VERSION = "14";
    /**
     * The migrations that are expand-only: they only add tables, indexes, sequences and columns that
     * are nullable or have a default, so code of the version before runs unchanged on their schema
     * (it never reads what they add, and its writes fill it with the default). {@code
     * ExpandOnlyMigrationsTest} checks each script listed here. From version 14 on, such a script's
     * name starts with {@value #EXPAND_PREFIX}{@code _} ({@code V14__expand_…sql}): a node one
     * version behind cannot know the list of a newer release, so it reads the mark from the
     * migration's description in Flyway's history table ({@link #compatibleAhead}).
     */
    public static final Set<String> EXPAND_ONLY = Set.of("3", "6", "7", "8", "9", "11", "13", "14");
    /** The first word of an expand-only migration's script name (after {@code V<n>__}), from version 14 on. */
    public static final String EXPAND_PREFIX = "expand";

    private Migrations() {
    }

    /**
     * @param version     the highest version applied to the schema
     * @param description its description in Flyway's history ({@code V14__expand_foo.sql}: {@code expand foo})
     * @return whether this code runs on that schema although it is ahead: it is exactly one version
     * past {@link #EXPECTED_VERSION}, and that migration is marked expand-only
     */
    public static boolean compatibleAhead(String version, String description) {
        String next = String.valueOf(Integer.parseInt(EXPECTED_VERSION) + 1);
        if (!next.equals(version) || description == null) {
            return false;
        }
        String d = description.trim().toLowerCase(Locale.ROOT);
        return d.equals(EXPAND_PREFIX) || d.startsWith(EXPAND_PREFIX + " ");
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
                // a schema the application shares may hold its tables already: the history table is
                // then created with a baseline below every script (version 0), and they all run
                .baselineOnMigrate(true)
                .baselineVersion("0")
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
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            s.execute("DROP SCHEMA IF EXISTS " + schema.name() + " CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException("could not drop schema " + schema.name() + ": " + e.getMessage(), e);
        }
    }
}
