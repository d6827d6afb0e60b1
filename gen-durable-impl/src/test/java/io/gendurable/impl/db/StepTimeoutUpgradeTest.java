package io.gendurable.impl.db;

import io.gendurable.DurableFsm;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Schema version 13 (step timeouts) on a database that holds rows: it adds the column without
 * reading the table (its check is NOT VALID: every row before it holds NULL), the check holds for
 * every write after it, and a row inserted before it runs under its FSM's timeout.
 */
@EngineTest
class StepTimeoutUpgradeTest {
    public record Job(String label) {
    }

    /** Sleeps 30 s on its first attempt (interruptible), done on the next. */
    @DurableFsm(name = "upgraded", stepTimeout = "PT0.2S")
    public static class Upgraded implements Fsm<Job> {
        @Override
        public Outcome step(String step, Job j, StepContext ctx) throws Exception {
            if (ctx.attempt() == 1) {
                Thread.sleep(30_000);
            }
            return Outcome.done("attempt " + ctx.attempt());
        }
    }

    @Test
    void version_13_adds_the_column_without_reading_the_table_and_an_older_row_runs_under_its_fsm_s_timeout(EngineHarness h) {
        Flyway.configure(Migrations.class.getClassLoader()).dataSource(h.dataSource()).schemas(h.schema())
                .defaultSchema(h.schema()).createSchemas(true).table(Migrations.HISTORY_TABLE)
                .locations("classpath:db/gendurable").target("12").load().migrate();
        h.exec("""
                INSERT INTO gen_durable (id, fsm, step, state, status) VALUES (1, 'upgraded', 'start', '{"label": "old"}', 'runnable');
                SELECT setval(pg_get_serial_sequence('gen_durable', 'id'), 1);
                """);
        Engine e = h.start("n1", c -> c, new Upgraded());

        assertThat(h.queryLong("SELECT count(*) FROM pg_constraint WHERE conrelid = 'gen_durable'::regclass"
                + " AND conname = 'gen_durable_step_timeout_ms_check' AND NOT convalidated"))
                .as("the check was added without validating (reading) the rows of before").isOne();
        assertThatThrownBy(() -> h.exec("UPDATE gen_durable SET step_timeout_ms = -1 WHERE id = 1"))
                .as("the check holds for writes after it").hasStackTraceContaining("gen_durable_step_timeout_ms_check");

        await().atMost(Duration.ofSeconds(15)).until(() -> e.find(1).orElseThrow().status() == Status.DONE);
        assertThat(e.find(1).orElseThrow().result().as(String.class)).as("timed out on attempt 1 (the FSM's PT0.2S)")
                .isEqualTo("attempt 2");
        assertThat(e.metrics().stepTimeouts("upgraded", "start")).isEqualTo(1);
    }
}
