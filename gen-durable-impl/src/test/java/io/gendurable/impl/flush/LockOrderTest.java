package io.gendurable.impl.flush;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.JdbcSpy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Defect 7 of issue 13: the heartbeat and the flush deadlocked. The heartbeat updated its rows
 * with {@code UPDATE … WHERE id = ANY(?)}, in whatever order the plan visits them (the heap's,
 * which rows that move on every update scramble), while the flush locks its batch in id order: a
 * heartbeat holding row 7 and waiting for row 3 meets a flush holding row 3 and waiting for row 7.
 * PostgreSQL aborts one of them; the flush's retry absorbed it, but three in a row lose the batch.
 * Here heartbeats every 10 ms race inline continues (each a flush that keeps its rows executing)
 * over the same 64 claims for several seconds: no statement on the engine's connections may be
 * aborted as a deadlock (SQLSTATE 40P01, seen by a JDBC spy on its own connections rather than in
 * the database-wide {@code pg_stat_database.deadlocks}, which other tests and builds move) and no
 * flush may fail.
 */
@EngineTest
class LockOrderTest {
    /** @param n steps taken */
    public record Count(int n) {
    }

    /** Continues inline, step after step, each one a flush of a row the heartbeat also renews. */
    @DurableFsm(name = "spin", inlineExecution = true)
    public static class Spin implements Fsm<Count> {
        static final int STEPS = 300;

        @Override
        public Outcome step(String step, Count c, StepContext ctx) {
            return c.n() < STEPS ? Outcome.next("s", new Count(c.n() + 1)) : Outcome.done(c);
        }
    }

    EngineHarness h;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
    }

    @Test
    void heartbeats_racing_flushes_over_the_same_rows_never_deadlock() {
        List<String> deadlocks = new java.util.concurrent.CopyOnWriteArrayList<>();
        h.wrapDataSource(ds -> JdbcSpy.errors(ds, x -> {
            if ("40P01".equals(x.getSQLState())) {
                deadlocks.add(x.getMessage());
            }
        }));
        Engine e = h.start("spin", c -> c.queues(Map.of("default", 64)).prefetch(0)
                .lease(Duration.ofSeconds(30), Duration.ofMillis(10)), new Spin());
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            batch.add(new NewInstance("spin", new Count(0), InsertOptions.builder().step("s").build()));
        }
        e.insertAll(batch);
        await().atMost(Duration.ofSeconds(120)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 64);
        assertThat(deadlocks).as("statements of the engine aborted as deadlocks").isEmpty();
        assertThat(e.metrics().flushErrors.sum()).as("flush attempts that failed").isZero();
        assertThat(e.metrics().loopErrors.sum()).as("background loop errors (heartbeats)").isZero();
    }
}
