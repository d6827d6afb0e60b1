package io.gendurable.impl.db;

import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Migrations#EXPECTED_VERSION}, which readiness compares with, is the version a full migration reaches. */
@EngineTest
class MigrationsVersionTest {
    @Test
    void the_expected_version_is_the_highest_a_migration_applies(EngineHarness h) {
        h.start("version", c -> c.queues(Map.of()));
        long rank = h.queryLong("SELECT max(installed_rank) FROM " + Migrations.HISTORY_TABLE + " WHERE success");
        long atExpected = h.queryLong("SELECT installed_rank FROM " + Migrations.HISTORY_TABLE
                + " WHERE success AND version = '" + Migrations.EXPECTED_VERSION + "'");
        assertThat(atExpected).as("the last migration applied is version " + Migrations.EXPECTED_VERSION).isEqualTo(rank);
    }

    /** docs/operations.md names the version readiness expects: it is this one (it once said 6 at version 11). */
    @Test
    void the_operations_page_names_the_expected_version() throws java.io.IOException {
        String page = java.nio.file.Files.readString(java.nio.file.Path.of("../docs/operations.md"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("the version the release ships \\((\\d+) today\\)").matcher(page);
        assertThat(m.find()).as("docs/operations.md says which version the release ships").isTrue();
        assertThat(m.group(1)).isEqualTo(Migrations.EXPECTED_VERSION);
    }

    /**
     * docs/operations.md names the migrations up to the latest file of db/gendurable, and its manual
     * install takes every version of the jar rather than a list (it once listed V1-V3 of ten).
     */
    @Test
    void the_operations_page_names_the_latest_migration_and_installs_every_one() throws Exception {
        String page = java.nio.file.Files.readString(java.nio.file.Path.of("../docs/operations.md"));
        String latest;
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of("src/main/resources/db/gendurable"))) {
            latest = files.map(p -> p.getFileName().toString()).filter(n -> n.matches("V\\d+__.*\\.sql"))
                    .max(java.util.Comparator.comparingInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__")))))
                    .orElseThrow();
        }
        assertThat(latest).startsWith("V" + Migrations.EXPECTED_VERSION + "__");
        assertThat(page).as("the migration list names the latest").contains("`V1__schema.sql` to `" + latest + "` today");
        assertThat(page).as("the manual install takes every version, in version order")
                .contains("'db/gendurable/V*.sql'").contains("sort -V")
                .doesNotContainPattern("for v in V1__");
    }

    /**
     * The manual install of docs/operations.md (every db/gendurable script, in version order, with
     * the schema as the search path) yields the schema Flyway installs: the same columns (type,
     * default, nullability), indexes, constraints, types, sequences and functions.
     */
    @Test
    void the_manual_install_yields_the_schema_flyway_installs(EngineHarness h) throws Exception {
        h.start("flyway", c -> c.queues(Map.of())).stop();
        String manual = h.schema() + "_manual";
        java.util.List<java.nio.file.Path> scripts;
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of("src/main/resources/db/gendurable"))) {
            scripts = files.filter(p -> p.getFileName().toString().matches("V\\d+__.*\\.sql"))
                    .sorted(java.util.Comparator.comparingInt(p -> {
                        String n = p.getFileName().toString();
                        return Integer.parseInt(n.substring(1, n.indexOf("__")));
                    })).toList();
        }
        try (var c = h.dataSource().getConnection(); var s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + manual + " CASCADE; CREATE SCHEMA " + manual);
            s.execute("SET search_path TO " + manual);
            for (var script : scripts) {
                s.execute(java.nio.file.Files.readString(script));
            }
            assertThat(catalog(s, manual)).isEqualTo(catalog(s, h.schema()));
            s.execute("DROP SCHEMA " + manual + " CASCADE");
        }
    }

    /** @return the schema's catalog, its own name written as {@code S} */
    private static java.util.List<String> catalog(java.sql.Statement s, String schema) throws java.sql.SQLException {
        java.util.List<String> out = new java.util.ArrayList<>();
        s.execute("SET search_path TO " + schema);  // definitions name the schema's own types alike
        String[] queries = {
                "SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || COALESCE(column_default, '') || ' '"
                        + " || is_nullable || ' ' || COALESCE(generation_expression, '') FROM information_schema.columns"
                        + " WHERE table_schema = '%1$s' AND table_name <> 'gendurable_schema_history'",
                "SELECT indexdef FROM pg_indexes WHERE schemaname = '%1$s' AND tablename <> 'gendurable_schema_history'",
                "SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint"
                        + " WHERE connamespace = '%1$s'::regnamespace AND conrelid::regclass::text NOT LIKE '%%schema_history%%'",
                "SELECT typname FROM pg_type WHERE typnamespace = '%1$s'::regnamespace AND typtype = 'e'",
                "SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = '%1$s'",
                "SELECT proname || ' ' || md5(prosrc) FROM pg_proc WHERE pronamespace = '%1$s'::regnamespace"};
        for (String q : queries) {
            try (var rs = s.executeQuery(q.formatted(schema))) {
                while (rs.next()) {
                    out.add(rs.getString(1).replace(schema + ".", "S.").replace(schema, "S"));
                }
            }
        }
        java.util.Collections.sort(out);
        return out;
    }
}
