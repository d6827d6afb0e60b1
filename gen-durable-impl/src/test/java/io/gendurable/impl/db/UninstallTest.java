package io.gendurable.impl.db;

import io.gendurable.impl.support.EngineHarness;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/operations.md's uninstall recipe, run literally: in a schema the application shares, after a
 * full install, it leaves the schema's catalog as it was before the install (the application's
 * own table, view and type included), so a migration that creates something the recipe does not
 * drop fails here.
 */
class UninstallTest {
    private static final Path PAGE = Path.of("..", "docs", "operations.md");

    @Test
    void the_recipe_removes_everything_the_migrations_created_and_nothing_else() throws Exception {
        String recipe = recipe();
        try (EngineHarness h = new EngineHarness("uninstall")) {
            String schema = h.schema() + "_shared";
            String control = h.schema() + "_app";
            try (Connection c = h.dataSource().getConnection(); Statement s = c.createStatement()) {
                // the application's objects alone, in a schema of their own: what must be left
                s.execute("DROP SCHEMA IF EXISTS " + control + " CASCADE; CREATE SCHEMA " + control);
                s.execute("SET search_path TO " + control);
                createApplicationObjects(s);
                List<String> expected = catalog(s, control);
                // the shared schema: the engine installed first, then the application's
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                Migrations.migrate(h.dataSource(), new SchemaName(schema));
                s.execute("SET search_path TO " + schema);
                createApplicationObjects(s);
                assertThat(catalog(s, schema)).as("the install added objects").hasSizeGreaterThan(expected.size() + 9);
                s.execute(recipe);
                assertThat(catalog(s, schema)).isEqualTo(expected);
                s.execute("DROP SCHEMA " + schema + " CASCADE; DROP SCHEMA " + control + " CASCADE");
            }
        }
    }

    @Test
    void the_engine_installs_into_a_schema_that_already_holds_the_applications_tables() throws Exception {
        try (EngineHarness h = new EngineHarness("shared-first")) {
            String schema = h.schema() + "_app_first";
            try (Connection c = h.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema);
                s.execute("SET search_path TO " + schema);
                createApplicationObjects(s);
                s.execute("INSERT INTO app_orders VALUES (1, 'paid')");
                List<String> before = catalog(s, schema);

                int applied = Migrations.migrate(h.dataSource(), new SchemaName(schema));

                assertThat(applied).as("every migration, from the first").isEqualTo(Integer.parseInt(Migrations.EXPECTED_VERSION));
                assertThat(catalog(s, schema)).containsAll(before).contains("rel r gen_durable");
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM app_orders")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).as("the application's rows").isEqualTo(1);
                }
                assertThat(Migrations.migrate(h.dataSource(), new SchemaName(schema))).as("a second start").isZero();
                s.execute(recipe());
                assertThat(catalog(s, schema)).as("uninstalled again").isEqualTo(before);
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    private static void createApplicationObjects(Statement s) throws Exception {
        s.execute("CREATE TYPE app_state AS ENUM ('new', 'paid')");
        s.execute("CREATE TABLE app_orders (id bigint PRIMARY KEY, state app_state)");
        s.execute("CREATE VIEW app_paid AS SELECT id FROM app_orders WHERE state = 'paid'");
    }

    /** @return the SQL block of the page's "Uninstalling" section */
    static String recipe() throws Exception {
        String page = Files.readString(PAGE);
        String section = page.substring(page.indexOf("\n## Uninstalling"));
        Matcher m = Pattern.compile("```sql\\n(.*?)```", Pattern.DOTALL).matcher(section);
        assertThat(m.find()).as("an sql block in operations.md's Uninstalling section").isTrue();
        return m.group(1);
    }

    /** @return every relation, type, function and sequence of the schema, with its kind, sorted */
    static List<String> catalog(Statement s, String schema) throws Exception {
        List<String> out = new ArrayList<>();
        String sql = """
                SELECT 'rel ' || c.relkind::text || ' ' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = '%1$s'
                UNION ALL
                SELECT 'type ' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                WHERE n.nspname = '%1$s'
                UNION ALL
                SELECT 'proc ' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = '%1$s'
                ORDER BY 1
                """.formatted(schema);
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
