package io.gendurable.impl.db;

import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Schema version 12 (fan-out generations) on a database that holds a tree mid-join: a parent
 * waiting for one more child, a child that failed and counted already, another still runnable.
 * The migration marks the ended child as counted, so an operator's retry of it after the
 * upgrade does not count the parent down a second time; the child still runnable (it carries no
 * generation) counts as before.
 */
@EngineTest
class FanOutGenerationUpgradeTest {
    public record Job(String label) {
    }

    public static class Tree implements Fsm<Job> {
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public Outcome step(String step, Job j, StepContext ctx) throws InterruptedException {
            if (step.equals("joined")) {
                return Outcome.done(Map.of("children", ctx.children().size()));
            }
            if (j.label().equals("held")) {
                release.await(30, TimeUnit.SECONDS);
            }
            return Outcome.done(Map.of("label", j.label()));
        }
    }

    @Test
    void a_child_that_counted_before_the_upgrade_does_not_count_again_when_retried_after_it(EngineHarness h) {
        Flyway.configure(Migrations.class.getClassLoader()).dataSource(h.dataSource()).schemas(h.schema())
                .defaultSchema(h.schema()).createSchemas(true).table(Migrations.HISTORY_TABLE)
                .locations("classpath:db/gendurable").target("11").load().migrate();
        String fsm = Tree.class.getName();
        h.exec("""
                INSERT INTO gen_durable (id, fsm, step, state, status, children_pending)
                VALUES (1, '%1$s', 'joined', '{"label": "parent"}', 'awaiting_children', 1);
                INSERT INTO gen_durable (id, fsm, step, state, status, parent_id, last_error)
                VALUES (2, '%1$s', 'work', '{"label": "failed"}', 'failed', 1, 'boom');
                INSERT INTO gen_durable (id, fsm, step, state, status, parent_id)
                VALUES (3, '%1$s', 'work', '{"label": "held"}', 'runnable', 1);
                SELECT setval(pg_get_serial_sequence('gen_durable', 'id'), 3);
                """.formatted(fsm));
        Tree tree = new Tree();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 4)), tree);
        try {
            assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = 2 AND joined")).isEqualTo(1);
            e.operations().retry(2);
            await().atMost(Duration.ofSeconds(10)).until(() -> e.find(2).orElseThrow().status() == Status.DONE);
            await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> true);
            assertThat(e.find(1).orElseThrow().status()).as("the parent waits for child 3").isEqualTo(Status.AWAITING_CHILDREN);
        } finally {
            tree.release.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(1).orElseThrow().status() == Status.DONE);
        assertThat(h.queryLong("SELECT (result->>'children')::int FROM gen_durable WHERE id = 1")).isEqualTo(2);
    }
}
