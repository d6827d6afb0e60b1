package io.gendurable.impl.db;

import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.Fsm;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Outcome;
import io.gendurable.SignalTarget;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The upgrade docs/operations.md describes ("Upgrading", schema version 2): a database at schema
 * version 1 holds live work of every kind, left by a version-1 node that was stopped (killed,
 * here: its claim is still there): a runnable row, a row executing under the dead node's claim
 * while holding a gate slot, a row parked on a signal, and a parent waiting for two children. A
 * node of the current code starts on it, migrates it at start, and finishes all of it: the dead
 * claim comes back through the reaper, the parked row wakes on a signal sent after the upgrade,
 * the children join their parent, and the gate is back at capacity.
 */
@EngineTest
class UpgradeFromV1Test {
    /** @param label what the row stands for */
    public record Job(String label) {
    }

    /** Every kind of step a version-1 database can hold, each ending in done. */
    public static class Upgraded implements Fsm<Job> {
        @Override
        public Outcome step(String step, Job j, StepContext ctx) {
            return switch (step) {
                case "work" -> Outcome.done(Map.of("label", j.label()));
                case "after_signal" -> Outcome.done(Map.of("label", j.label(), "signals", ctx.awaited().size()));
                case "joined" -> Outcome.done(Map.of("label", j.label(), "children", ctx.children().size()));
                default -> Outcome.stop("unknown step " + step);
            };
        }
    }

    @Test
    void live_work_of_every_kind_left_by_a_stopped_version_one_node_finishes_on_the_current_code(EngineHarness h) {
        Flyway.configure(Migrations.class.getClassLoader()).dataSource(h.dataSource()).schemas(h.schema())
                .defaultSchema(h.schema()).createSchemas(true).table(Migrations.HISTORY_TABLE)
                .locations("classpath:db/gendurable").target("1").load().migrate();
        String fsm = Upgraded.class.getName();
        String job = "'{\"label\": \"%s\"}'::jsonb";
        h.exec("""
                INSERT INTO gen_durable (id, fsm, step, state, status) VALUES (1, '%1$s', 'work', %2$s, 'runnable');
                -- claimed by the stopped version-1 node, holding a slot of gate api (limit 2): no token
                INSERT INTO gen_durable (id, fsm, step, state, status, locked_by, lease_expires_at,
                                         concurrency_key, concurrency_shard)
                VALUES (2, '%1$s', 'work', %3$s, 'executing', 'old-node:default@dead0000', now() - interval '1 second',
                        'api:one', 0);
                INSERT INTO gen_durable_buckets (kind, key, shard, capacity, available) VALUES ('conc', 'api:one', 0, 2, 1);
                INSERT INTO gen_durable (id, fsm, step, state, status, awaits)
                VALUES (3, '%1$s', 'after_signal', %4$s, 'awaiting_signal', ARRAY['go']);
                INSERT INTO gen_durable (id, fsm, step, state, status, children_pending)
                VALUES (4, '%1$s', 'joined', %5$s, 'awaiting_children', 2);
                INSERT INTO gen_durable (id, fsm, step, state, status, parent_id)
                VALUES (5, '%1$s', 'work', %6$s, 'runnable', 4), (6, '%1$s', 'work', %7$s, 'runnable', 4);
                SELECT setval(pg_get_serial_sequence('gen_durable', 'id'), 6);
                """.formatted(fsm, job.formatted("runnable"), job.formatted("claimed"), job.formatted("parked"),
                job.formatted("parent"), job.formatted("child 1"), job.formatted("child 2")));

        // the migration alone first: the started node's reaper may take the dead claim back at once
        Flyway.configure(Migrations.class.getClassLoader()).dataSource(h.dataSource()).schemas(h.schema())
                .defaultSchema(h.schema()).table(Migrations.HISTORY_TABLE)
                .locations("classpath:db/gendurable").load().migrate();
        assertThat(h.queryLong("SELECT claim_token FROM gen_durable WHERE id = 2")).as("the old claim was fenced").isPositive();
        Engine e = h.start("new-node", c -> c.queues(Map.of("default", 4))
                .reaper(new EngineConfig.ReaperConfig(true, Duration.ofMillis(200), 100))
                .limits(new LimitsConfig(Map.of(), Map.of("api", new LimitsConfig.Gate("api", 2, 1)))),
                new Upgraded());
        assertThat(h.queryLong("SELECT max(version::int) FROM " + Migrations.HISTORY_TABLE)).as("every version up to the latest").isEqualTo(Long.parseLong(Migrations.EXPECTED_VERSION));

        e.signal(SignalTarget.id(3), "go", Map.of());
        await().atMost(Duration.ofSeconds(20)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 6);
        assertThat(result(e, 2)).contains("claimed");
        assertThat(result(e, 3)).contains("\"signals\":1");
        assertThat(result(e, 4)).contains("\"children\":2");
        assertThat(e.metrics().reaped.sum()).as("the dead node's claim came back through the reaper").isEqualTo(1);
        EngineInternals.gc(e).reconcileGates();
        assertThat(h.queryLong("SELECT COALESCE(sum(available), 2)::bigint FROM gen_durable_buckets "
                + "WHERE kind = 'conc' AND key = 'api:one'")).as("the gate is back at capacity").isEqualTo(2);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE claim_token IS NOT NULL")).isZero();
    }

    private static String result(Engine e, long id) {
        InstanceSnapshot s = e.find(id).orElseThrow();
        assertThat(s.status()).isEqualTo(Status.DONE);
        return s.result().toString().replace(" ", "");
    }
}
