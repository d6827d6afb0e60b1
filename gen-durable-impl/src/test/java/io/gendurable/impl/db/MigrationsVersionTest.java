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
}
