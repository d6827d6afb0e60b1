package io.gendurable.impl.flush;

import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The flush metrics count what was written. An outcome whose row another transaction holds
 * locked (a caller's open JTA transaction that signalled it) is carried to the next flush; each
 * carry used to be reported as a flush of that outcome: one outcome carried N times showed N + 1
 * flushes and a batch-size sum of N + 1 against one outcome written. Carries count in
 * {@code gendurable.flush.deferred} only; {@code gendurable.flush.batch.size} and
 * {@code gendurable.flush.duration} record the transaction that wrote it.
 */
@EngineTest
class FlushMetricsTest {
    public record Item(String label) {
    }

    public static class Held implements Fsm<Item> {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public Outcome step(String step, Item item, StepContext ctx) throws Exception {
            entered.countDown();
            release.await(30, TimeUnit.SECONDS);
            return Outcome.done();
        }
    }

    @Test
    void an_outcome_carried_over_several_flushes_is_reported_written_once(EngineHarness h) throws Exception {
        AtomicLong flushes = new AtomicLong();
        AtomicLong outcomes = new AtomicLong();
        EngineEvents events = new EngineEvents() {
            @Override
            public void flushed(int n, long nanos) {
                flushes.incrementAndGet();
                outcomes.addAndGet(n);
            }
        };
        Held fsm = new Held();
        Engine e = h.build("n1", c -> c.queues(Map.of("default", 1)), InstantSource.system(), b -> b.events(events), fsm);
        e.start();
        long x = e.insert(Held.class, new Item("x")).id();
        assertThat(fsm.entered.await(10, TimeUnit.SECONDS)).isTrue();
        try (Connection caller = h.dataSource().getConnection()) {
            caller.setAutoCommit(false);
            try (Statement s = caller.createStatement()) {
                s.execute("SET search_path TO " + h.schema());
                s.executeUpdate("UPDATE gen_durable SET updated_at = updated_at WHERE id = " + x);  // a signal's row lock
            }
            fsm.release.countDown();
            await().alias("the outcome carried three times").atMost(Duration.ofSeconds(10))
                    .until(() -> e.metrics().flushDeferred.sum() >= 3);
            assertThat(outcomes.get()).as("nothing written while the row is locked").isZero();
            caller.commit();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(x).orElseThrow().status() == Status.DONE);
        assertThat(e.metrics().flushedOutcomes.sum()).isEqualTo(1);
        assertThat(outcomes.get()).as("batch-size sum").isEqualTo(1);
        assertThat(flushes.get()).as("flushes recorded").isEqualTo(1);
        assertThat(e.metrics().flushes.sum()).isEqualTo(1);
    }
}
