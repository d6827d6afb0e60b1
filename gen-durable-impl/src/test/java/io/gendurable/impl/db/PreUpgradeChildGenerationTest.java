package io.gendurable.impl.db;

import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.RetryOptions;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Adversarial (issue 41, V12 review): a child that was live at the upgrade to schema version 12
 * carries no generation ({@code parent_fan_out} NULL) and counts toward whatever its parent
 * awaits, also a round its parent fanned out after the upgrade. Interleaving: before the upgrade,
 * P (awaiting C) is cancelled without its descendants, so C goes on; the schema is migrated (all
 * nodes stopped, as operations.md asks); an operator retries P from {@code start}, which fans
 * out D1 and D2 (generation 1); C ends, then D1. P must still wait for D2; it joined while D2 ran,
 * because C (NULL generation) counted toward generation 1.
 * <p>
 * Nothing but a pre-upgrade row can be NULL once the previous release's nodes are stopped, and
 * every parent's {@code fan_out} is 0 right after the migration, so stamping the existing children
 * {@code parent_fan_out = 0} in the migration would place them in their parent's round 0.
 * Left failing on purpose: the engine is not changed on this branch.
 */
@EngineTest
class PreUpgradeChildGenerationTest {
    public record Job(String label, List<String> kids) {
    }

    public static class Tree implements Fsm<Job> {
        final Map<String, CountDownLatch> released = new ConcurrentHashMap<>();

        CountDownLatch latch(String label) {
            return released.computeIfAbsent(label, k -> new CountDownLatch(1));
        }

        @Override
        public Outcome step(String step, Job j, StepContext ctx) throws InterruptedException {
            if (step.equals("joined")) {
                return Outcome.done(Map.of("children", ctx.children().size()));
            }
            if (!j.kids().isEmpty()) {
                return Outcome.scheduleChildren(j.kids().stream()
                        .map(k -> NewInstance.of(Tree.class, new Job(k, List.of()))).toList(), "joined", j);
            }
            if (!latch(j.label()).await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released: " + j.label());
            }
            return Outcome.done(Map.of("label", j.label()));
        }
    }

    @Test
    void a_child_live_at_the_upgrade_does_not_count_toward_a_round_its_parent_fans_out_after_it(EngineHarness h) {
        Flyway.configure(Migrations.class.getClassLoader()).dataSource(h.dataSource()).schemas(h.schema())
                .defaultSchema(h.schema()).createSchemas(true).table(Migrations.HISTORY_TABLE)
                .locations("classpath:db/gendurable").target("11").load().migrate();
        String fsm = Tree.class.getName();
        // P awaited C; an operator cancelled P without its descendants, C is still runnable
        h.exec("""
                INSERT INTO gen_durable (id, fsm, step, state, status, children_pending, last_error)
                VALUES (1, '%1$s', 'joined', '{"label": "parent", "kids": ["c"]}', 'cancelled', 1, 'operator');
                INSERT INTO gen_durable (id, fsm, step, state, status, parent_id)
                VALUES (2, '%1$s', 'start', '{"label": "c", "kids": []}', 'runnable', 1);
                SELECT setval(pg_get_serial_sequence('gen_durable', 'id'), 2);
                """.formatted(fsm));
        Tree tree = new Tree();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 8)), tree);
        try {
            e.operations().retry(1, RetryOptions.defaults().fromStep("start")
                    .withState(new Job("parent", List.of("d1", "d2"))));
            await().atMost(Duration.ofSeconds(10)).until(() -> e.find(1).orElseThrow().status() == Status.AWAITING_CHILDREN);
            long d1 = h.queryLong("SELECT id FROM gen_durable WHERE parent_id = 1 AND state->>'label' = 'd1'");
            assertThat(h.queryLong("SELECT children_pending FROM gen_durable WHERE id = 1")).isEqualTo(2);

            tree.latch("c").countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> e.find(2).orElseThrow().status() == Status.DONE);
            tree.latch("d1").countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> e.find(d1).orElseThrow().status() == Status.DONE);
            await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> true);
            assertThat(e.find(1).orElseThrow().status()).as("P waits for D2 (C belongs to the round before the upgrade)")
                    .isEqualTo(Status.AWAITING_CHILDREN);
            assertThat(h.queryLong("SELECT children_pending FROM gen_durable WHERE id = 1")).isEqualTo(1);
        } finally {
            tree.latch("d2").countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(1).orElseThrow().status() == Status.DONE);
    }
}
