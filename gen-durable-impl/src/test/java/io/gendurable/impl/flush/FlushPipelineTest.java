package io.gendurable.impl.flush;

import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Flush parallelism: with two flush transactions allowed, an outcome that arrives while a flush
 * is stuck commits in a second transaction; with one, it waits for the stuck flush. Either way
 * both commit once the lock goes. The stuck flush: x holds a gate slot, and an outsider holds the
 * gate's counter rows locked, so x's flush waits in its credit. (A flush no longer waits for an
 * instance row locked elsewhere: it carries that outcome to a later flush, FlushForeignLockTest.)
 */
@EngineTest
class FlushPipelineTest {
    public record Work(String name) {
    }

    static volatile CountDownLatch xRunning;
    static volatile CountDownLatch xMayFinish;
    static volatile CountDownLatch yMayFinish;

    public static class TwoSteps implements Fsm<Work> {
        @Override
        public Outcome step(String step, Work w, StepContext ctx) {
            try {
                if (w.name().equals("x")) {
                    xRunning.countDown();
                    xMayFinish.await(20, TimeUnit.SECONDS);
                } else {
                    yMayFinish.await(20, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Outcome.done(w);
        }
    }

    EngineHarness h;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
        xRunning = new CountDownLatch(1);
        xMayFinish = new CountDownLatch(1);
        yMayFinish = new CountDownLatch(1);
    }

    @AfterEach
    void down() {
        xMayFinish.countDown();
        yMayFinish.countDown();
    }

    @Test
    void a_second_flush_commits_while_the_first_waits_on_a_lock() throws Exception {
        run(2, true);
    }

    @Test
    void with_parallelism_one_the_next_flush_waits_for_the_stuck_one() throws Exception {
        run(1, false);
    }

    private void run(int parallelism, boolean yCommitsWhileXIsStuck) throws Exception {
        Engine e = h.start("node", c -> c.queues(Map.of("default", 2)).flushers(List.of(
                new EngineConfig.FlusherConfig(List.of("*"), 100, Duration.ZERO, parallelism)))
                .limits(new LimitsConfig(Map.of(), Map.of("g", new LimitsConfig.Gate("g", 5, 1)))), new TwoSteps());
        long x = e.insert(TwoSteps.class, new Work("x"),
                io.gendurable.InsertOptions.builder().concurrencyKey("g:x").build()).id();
        long y = e.insert(TwoSteps.class, new Work("y")).id();
        assertThat(xRunning.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(y).orElseThrow().status() == Status.EXECUTING);
        try (Connection outsider = h.dataSource().getConnection(); Statement s = outsider.createStatement()) {
            outsider.setAutoCommit(false);
            s.execute("SET search_path TO " + h.schema());
            s.execute("SELECT 1 FROM gen_durable_buckets WHERE kind = 'conc' FOR UPDATE");
            xMayFinish.countDown();
            // x's flush is now stuck in its gate credit, on the outsider's lock
            await().atMost(Duration.ofSeconds(10)).until(() -> h.waitingOn(outsider, "WITH c AS") == 1);
            yMayFinish.countDown();
            if (yCommitsWhileXIsStuck) {
                await().atMost(Duration.ofSeconds(10)).until(() -> e.find(y).orElseThrow().status() == Status.DONE);
            } else {
                Thread.sleep(1_000);
                assertThat(e.find(y).orElseThrow().status()).isEqualTo(Status.EXECUTING);
            }
            assertThat(e.find(x).orElseThrow().status()).isEqualTo(Status.EXECUTING);
            outsider.rollback();
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                e.find(x).orElseThrow().status() == Status.DONE && e.find(y).orElseThrow().status() == Status.DONE);
        assertThat(e.metrics().flushErrors.sum()).isZero();
    }
}
