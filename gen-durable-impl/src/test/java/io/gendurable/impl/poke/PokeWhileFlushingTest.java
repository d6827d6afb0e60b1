package io.gendurable.impl.poke;

import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
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
 * A scheduler whose only step has finished its code and waits for its outcome's flush is not
 * busy: a poke makes it claim at once. (It used to drop the poke until that flush committed, so on
 * an idle engine every new row waited out the previous row's commit; here the flush is stuck and
 * the poll is a minute away, so the new row would not start at all.)
 */
@EngineTest
class PokeWhileFlushingTest {
    public record Work(String name) {
    }

    static final CountDownLatch yStarted = new CountDownLatch(1);
    static final CountDownLatch xRunning = new CountDownLatch(1);
    static final CountDownLatch xMayFinish = new CountDownLatch(1);

    public static class Steps implements Fsm<Work> {
        @Override
        public Outcome step(String step, Work w, StepContext ctx) {
            if (w.name().equals("y")) {
                yStarted.countDown();
            } else {
                xRunning.countDown();
                try {
                    xMayFinish.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Outcome.done(w);
        }
    }

    @Test
    void a_poke_claims_while_the_only_step_waits_for_its_flush(EngineHarness h) throws Exception {
        Engine e = h.start("node", c -> c.queues(Map.of("default", 2))
                .poll(Duration.ofSeconds(60), Duration.ofSeconds(60))
                .flushers(List.of(new EngineConfig.FlusherConfig(List.of("*"), 100, Duration.ZERO, 1)))
                .limits(new LimitsConfig(Map.of(), Map.of("g", new LimitsConfig.Gate("g", 5, 1)))), new Steps());
        try (Connection outsider = h.dataSource().getConnection(); Statement s = outsider.createStatement()) {
            outsider.setAutoCommit(false);
            long x = e.insert(Steps.class, new Work("x"),
                    io.gendurable.InsertOptions.builder().concurrencyKey("g:x").build()).id();
            assertThat(xRunning.await(10, TimeUnit.SECONDS)).isTrue();
            s.execute("SET search_path TO " + h.schema());
            s.execute("SELECT 1 FROM gen_durable_buckets WHERE kind = 'conc' FOR UPDATE");
            xMayFinish.countDown();
            // x's step ran; its flush now waits on the outsider's lock, in its gate credit
            await().atMost(Duration.ofSeconds(10)).until(() -> h.waitingOn(outsider, "WITH c AS") == 1);
            e.insert(Steps.class, new Work("y"));
            assertThat(yStarted.await(5, TimeUnit.SECONDS)).as("y started while x's flush was stuck").isTrue();
            outsider.rollback();
            await().atMost(Duration.ofSeconds(10)).until(() -> e.find(x).orElseThrow().status() == io.gendurable.Status.DONE);
        }
    }
}
