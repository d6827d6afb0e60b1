package io.gendurable.impl.db;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Migrations#EXPAND_ONLY} against the scripts of {@code db/gendurable}: a listed migration
 * only adds (tables, non-unique indexes, sequences, columns that are nullable or have a default, and
 * unique indexes partial on {@code <column> IS NOT NULL} for a nullable column the same script adds:
 * no existing row, and no row written by code that does not know the column, is in such an index),
 * so the code of the version before runs on its schema; from version 14 on, a script is named
 * {@code V<n>__expand_…} exactly when it is listed, which is how an older node recognises it
 * ({@link Migrations#compatibleAhead}).
 */
class ExpandOnlyMigrationsTest {
    private static final Path DIR = Path.of("src/main/resources/db/gendurable");
    /** The first version whose expand-only script carries the name mark. */
    private static final int MARKED_FROM = 14;

    private static final List<Pattern> ALLOWED = List.of(
            Pattern.compile("create table [a-z_]+ \\(.*\\)", Pattern.DOTALL),
            Pattern.compile("create index [a-z_]+ on [a-z_]+ .*", Pattern.DOTALL),
            Pattern.compile("create sequence [a-z_]+.*", Pattern.DOTALL),
            Pattern.compile("comment on .*", Pattern.DOTALL),
            // a check that only later writes must pass (existing rows are not read): an old node's
            // writes leave the new column null, which passes it
            Pattern.compile("alter table [a-z_]+ add constraint [a-z_]+ check \\(.*\\) not valid", Pattern.DOTALL));
    private static final Pattern ALTER = Pattern.compile("alter table [a-z_]+ (add column .*)", Pattern.DOTALL);
    /** A unique index whose predicate starts with {@code <column> IS NOT NULL AND …} (or is only that). */
    private static final Pattern UNIQUE_PARTIAL = Pattern.compile(
            "create unique index [a-z_]+ on [a-z_]+ \\([^)]*\\) where ([a-z_]+) is not null( and .*)?", Pattern.DOTALL);
    private static final Pattern ADDED_NULLABLE = Pattern.compile("add column ([a-z_]+) [a-z ]+");

    private static Map<Integer, Path> scripts() throws Exception {
        Map<Integer, Path> out = new TreeMap<>();
        try (var files = Files.list(DIR)) {
            files.filter(p -> p.getFileName().toString().matches("V\\d+__.*\\.sql")).forEach(p -> {
                String n = p.getFileName().toString();
                out.put(Integer.parseInt(n.substring(1, n.indexOf("__"))), p);
            });
        }
        return out;
    }

    /** @return the script's statements that do something other than add, empty when it only adds */
    static List<String> notAdditive(String script) {
        String sql = script.replaceAll("--[^\n]*", " ").toLowerCase(Locale.ROOT);
        List<String> bad = new ArrayList<>();
        java.util.Set<String> addedNullable = new java.util.HashSet<>();
        for (String raw : sql.split(";")) {
            String s = raw.trim().replaceAll("\\s+", " ");
            if (s.isEmpty() || ALLOWED.stream().anyMatch(p -> p.matcher(s).matches())) {
                continue;
            }
            var unique = UNIQUE_PARTIAL.matcher(s);
            if (unique.matches() && addedNullable.contains(unique.group(1))) {
                continue;
            }
            var alter = ALTER.matcher(s);
            if (alter.matches() && alter.group(1).split(",\\s*(?=add column )").length > 0
                    && java.util.Arrays.stream(alter.group(1).split(",\\s*(?=add column )"))
                    .allMatch(c -> c.startsWith("add column ") && (!c.contains("not null") || c.contains(" default ")))) {
                for (String c : alter.group(1).split(",\\s*(?=add column )")) {
                    var added = ADDED_NULLABLE.matcher(c.trim());
                    if (added.matches() && !c.contains("not null") && !c.contains(" default ")) {
                        addedNullable.add(added.group(1));
                    }
                }
                continue;
            }
            bad.add(s);
        }
        return bad;
    }

    @Test
    void every_expand_only_migration_only_adds() throws Exception {
        Map<Integer, Path> scripts = scripts();
        for (String v : Migrations.EXPAND_ONLY) {
            Path p = scripts.get(Integer.parseInt(v));
            assertThat(p).as("the script of expand-only version %s", v).isNotNull();
            assertThat(notAdditive(Files.readString(p))).as("%s: statements that do more than add", p.getFileName()).isEmpty();
        }
    }

    @Test
    void the_check_rejects_the_migrations_that_change_or_drop() throws Exception {
        Map<Integer, Path> scripts = scripts();
        // V2 backfills and constrains an existing column, V4 widens a type, V5 and V10 drop an index, V12 backfills
        for (int v : List.of(2, 4, 5, 10, 12)) {
            assertThat(Migrations.EXPAND_ONLY).doesNotContain(String.valueOf(v));
            assertThat(notAdditive(Files.readString(scripts.get(v)))).as("V%d", v).isNotEmpty();
        }
        assertThat(notAdditive("ALTER TABLE gen_durable ADD COLUMN x integer NOT NULL;")).isNotEmpty();
        assertThat(notAdditive("ALTER TABLE gen_durable ADD COLUMN x integer NOT NULL DEFAULT 0;")).isEmpty();
        assertThat(notAdditive("CREATE UNIQUE INDEX u ON gen_durable (step);")).isNotEmpty();
        // a unique index partial on a column the same script adds, nullable and without a default: allowed
        assertThat(notAdditive("ALTER TABLE gen_durable ADD COLUMN k text;"
                + " CREATE UNIQUE INDEX u ON gen_durable (fsm, k) WHERE k IS NOT NULL AND status = 'runnable';")).isEmpty();
        // ... but not on an existing column, a column with a default, or before the column is added
        assertThat(notAdditive("CREATE UNIQUE INDEX u ON gen_durable (fsm, step) WHERE step IS NOT NULL;")).isNotEmpty();
        assertThat(notAdditive("ALTER TABLE gen_durable ADD COLUMN k text DEFAULT 'x';"
                + " CREATE UNIQUE INDEX u ON gen_durable (k) WHERE k IS NOT NULL;")).isNotEmpty();
        assertThat(notAdditive("CREATE UNIQUE INDEX u ON gen_durable (k) WHERE k IS NOT NULL;"
                + " ALTER TABLE gen_durable ADD COLUMN k text;")).isNotEmpty();
        assertThat(notAdditive("ALTER TABLE gen_durable ALTER COLUMN step DROP NOT NULL;")).isNotEmpty();
    }

    @Test
    void from_version_14_an_expand_only_script_is_named_so_and_only_then() throws Exception {
        for (Map.Entry<Integer, Path> e : scripts().entrySet()) {
            if (e.getKey() < MARKED_FROM) {
                continue;
            }
            String name = e.getValue().getFileName().toString();
            boolean marked = name.startsWith("V" + e.getKey() + "__" + Migrations.EXPAND_PREFIX + "_");
            assertThat(marked).as("%s is named %s_… exactly when it is in Migrations.EXPAND_ONLY", name,
                    Migrations.EXPAND_PREFIX).isEqualTo(Migrations.EXPAND_ONLY.contains(String.valueOf(e.getKey())));
        }
    }

    @Test
    void only_the_next_version_marked_expand_only_is_compatible_ahead() {
        String next = String.valueOf(Integer.parseInt(Migrations.EXPECTED_VERSION) + 1);
        String after = String.valueOf(Integer.parseInt(Migrations.EXPECTED_VERSION) + 2);
        assertThat(Migrations.compatibleAhead(next, "expand step labels")).isTrue();
        assertThat(Migrations.compatibleAhead(next, "Expand")).isTrue();
        assertThat(Migrations.compatibleAhead(next, "expanded index")).isFalse();
        assertThat(Migrations.compatibleAhead(next, "drop legacy")).isFalse();
        assertThat(Migrations.compatibleAhead(next, null)).isFalse();
        assertThat(Migrations.compatibleAhead(after, "expand step labels")).isFalse();
        assertThat(Migrations.compatibleAhead(Migrations.EXPECTED_VERSION, "expand")).isFalse();
    }
}
