package io.gendurable.impl.claim;

import io.gendurable.InsertOptions;
import io.gendurable.Status;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Item;
import io.gendurable.impl.support.Fsms.Noop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The claim's retry on a K = 1 unique violation: contention is expected, so when it outlasts
 * the retries the claim gives up until the next poll quietly (one INFO line and a counter),
 * never as a loop error with a stack trace.
 */
@EngineTest
class ClaimContentionTest {

    EngineHarness h;
    final List<LogRecord> records = new CopyOnWriteArrayList<>();
    final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            records.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    final Logger log = Logger.getLogger("io.gendurable");  // every category: no WARNING from any of them
    // Hibernate's SqlExceptionHelper logged every expected unique violation at WARN and ERROR
    // ("SQL Error: 0, SQLState: 23505"): 377 lines in one 70 s chaos run
    final Logger hibernate = Logger.getLogger("org.hibernate");

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
        log.addHandler(capture);
        hibernate.addHandler(capture);
    }

    @AfterEach
    void down() {
        log.removeHandler(capture);
        hibernate.removeHandler(capture);
    }

    /**
     * Issue 13, defect 8b. The interleaving in production: nodes A and B claim in the same
     * instant; both see key {@code k}'s rows runnable with no executing sibling, both flip one to
     * {@code executing}, and the second to commit trips the unique index
     * {@code gen_durable_concurrency_active}. The claim retries at once, and under heavy K = 1
     * traffic it can lose that race three times running. Before the fix the third loss escaped
     * to the claim loop's guard, which logged {@code WARNING gen-durable claim of queue default
     * failed; it will run again} with the whole stack trace and counted a loop error. A trigger
     * here raises the same unique violation (SQLSTATE 23505) on the first three claims of a
     * {@code k1} row, so the retries run out deterministically; the fourth claim (the next poll)
     * goes through.
     */
    @Test
    void k1_contention_that_outlasts_the_retries_logs_one_info_line_counts_it_and_the_next_poll_claims_the_row() {
        Engine e = h.start("n1", c -> c, new Noop());
        String s = h.schema();
        h.exec("CREATE SEQUENCE " + s + ".contention_injected;"
                + "CREATE FUNCTION " + s + ".inject_contention() RETURNS trigger LANGUAGE plpgsql AS $$\n"
                + "BEGIN\n"
                + "  IF OLD.status = 'runnable' AND NEW.status = 'executing' AND NEW.concurrency_key = 'k1' THEN\n"
                + "    IF nextval('" + s + ".contention_injected') <= 3 THEN\n"
                + "      RAISE unique_violation USING MESSAGE = 'duplicate key value violates unique constraint "
                + "\"gen_durable_concurrency_active\"', DETAIL = 'Key (concurrency_key)=(k1) already exists.';\n"
                + "    END IF;\n"
                + "  END IF;\n"
                + "  RETURN NEW;\n"
                + "END $$;"
                + "CREATE TRIGGER inject_contention BEFORE UPDATE ON " + s + ".gen_durable"
                + " FOR EACH ROW EXECUTE FUNCTION " + s + ".inject_contention();");
        records.clear();

        long id = e.insert(Noop.class, new Item(1), InsertOptions.builder().concurrencyKey("k1").build()).id();
        await().atMost(Duration.ofSeconds(15)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);

        assertThat(h.queryLong("SELECT last_value FROM " + s + ".contention_injected")).as("claims that met the injected race")
                .isGreaterThanOrEqualTo(4);
        assertThat(records.stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue() || r.getThrown() != null)
                .map(r -> r.getLevel() + " " + r.getMessage() + (r.getThrown() == null ? "" : " + stack trace")).toList())
                .as("WARNING-or-worse records, or records with a stack trace, for expected contention").isEmpty();
        assertThat(e.metrics().loopErrors.sum()).as("loop errors").isZero();
        assertThat(e.metrics().contendedDeferred.sum()).as("claims that gave up until the next poll").isEqualTo(1);
        assertThat(e.metrics().contended.sum()).as("retries").isGreaterThanOrEqualTo(2);
        assertThat(e.metrics().queue("default").contendedDeferred.sum()).as("the queue's share, its metric's queue tag").isEqualTo(1);
        assertThat(e.metrics().queue("default").contended.sum()).isEqualTo(e.metrics().contended.sum());
        assertThat(records).filteredOn(r -> r.getLevel() == Level.INFO)
                .filteredOn(r -> "io.gendurable.claim".equals(r.getLoggerName()))
                .anySatisfy(r -> assertThat(r.getMessage()).contains("K = 1").contains("queue default")
                        .contains("next poll").doesNotContain("\n"));
    }
}
