package io.gendurable.impl.health;

import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling upgrade's schema: a newer node has applied the next migration. When that migration is
 * marked expand-only (its description starts with {@code expand}), this node stays ready and still
 * starts (migrate at start leaves a future migration alone); any other schema ahead is DOWN.
 */
@EngineTest
class SchemaAheadTest {
    private static EngineConfig.Builder quiet(EngineConfig.Builder c) {
        return c.queues(Map.of()).health(new EngineConfig.HealthConfig(Duration.ofSeconds(2), Duration.ofSeconds(10)));
    }

    @Test
    void a_schema_one_expand_only_migration_ahead_is_ready_and_any_other_ahead_is_not(EngineHarness h) {
        Engine e = h.start("behind", SchemaAheadTest::quiet);
        String history = Migrations.HISTORY_TABLE;
        String next = String.valueOf(Integer.parseInt(Migrations.EXPECTED_VERSION) + 1);
        h.exec("INSERT INTO " + history + " (installed_rank, version, description, type, script, installed_by, execution_time, success)"
                + " VALUES (1000, '" + next + "', 'expand step labels', 'SQL', 'V" + next + "__expand_step_labels.sql', 'test', 1, true)");

        EngineHealth.Check ahead = e.health().readiness();
        assertThat(ahead.up()).as(ahead.toString()).isTrue();
        assertThat(ahead.data()).containsEntry("schema version", next)
                .containsEntry("expected version", Migrations.EXPECTED_VERSION)
                .containsEntry("schema ahead", "compatible: version " + next + " is expand-only");

        // a node of this version that starts now (migrate at start) comes up on that schema, ready
        Engine late = h.start("late", SchemaAheadTest::quiet);
        assertThat(late.health().readiness().up()).isTrue();

        h.exec("UPDATE " + history + " SET description = 'drop step labels' WHERE version = '" + next + "'");
        EngineHealth.Check contracting = e.health().readiness();
        assertThat(contracting.up()).as(contracting.toString()).isFalse();
        assertThat(contracting.data()).doesNotContainKey("schema ahead");

        String twoAhead = String.valueOf(Integer.parseInt(next) + 1);
        h.exec("UPDATE " + history + " SET description = 'expand step labels' WHERE version = '" + next + "'");
        h.exec("INSERT INTO " + history + " (installed_rank, version, description, type, script, installed_by, execution_time, success)"
                + " VALUES (1001, '" + twoAhead + "', 'expand more', 'SQL', 'V" + twoAhead + "__expand_more.sql', 'test', 1, true)");
        assertThat(e.health().readiness().up()).as("two versions ahead, however additive").isFalse();
    }
}
