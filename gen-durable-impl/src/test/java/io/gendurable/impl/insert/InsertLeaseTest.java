package io.gendurable.impl.insert;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A row started at its insert is never born with a lapsed lease (issue 35, defect 2, as
 * reproduced). The batch holds a row that can start at once and a row whose correlation key an
 * uncommitted transaction holds (a caller's open JTA transaction): the insert statement waits on
 * the key's unique entry longer than the lease (3 s against 2 s), then the holder rolls back and
 * the batch commits. The lease was read from the clock before the statement, so the started row
 * committed {@code executing} with a lease already past: any node's reaper took it while its step
 * ran here, and the step ran twice. The insert now stamps the lease again, fenced by the row's
 * token, in its own transaction when the statement took over half the lease.
 */
@EngineTest
class InsertLeaseTest {
    public record Item(String label) {
    }

    public static class Held implements Fsm<Item> {
        final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        final CountDownLatch open = new CountDownLatch(1);

        @Override
        public Outcome step(String step, Item s, StepContext ctx) throws InterruptedException {
            runs.computeIfAbsent(s.label(), k -> new AtomicInteger()).incrementAndGet();
            open.await(30, TimeUnit.SECONDS);
            return Outcome.done();
        }
    }

    @Test
    void a_row_started_by_an_insert_that_waited_past_the_lease_is_not_reaped_while_it_runs(EngineHarness h)
            throws Exception {
        Held fsm = new Held();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 4)).lease(Duration.ofSeconds(2), Duration.ofMillis(1900)),
                fsm);
        try (Connection holder = h.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (var s = holder.createStatement()) {
                s.execute("SET search_path TO " + h.schema());
                s.execute("INSERT INTO gen_durable (fsm, step, correlation_key, correlation_scope) VALUES ('other', 'start', "
                        + "'order-1', '{runnable,executing,awaiting_signal,awaiting_children}')");
            }
            CompletableFuture<List<Inserted>> insert = CompletableFuture.supplyAsync(() -> e.insertAll(List.of(
                    NewInstance.of(Held.class, new Item("started")),
                    NewInstance.of(Held.class, new Item("keyed"), InsertOptions.builder().correlationKey("order-1").build()))));
            await().alias("the insert waits on the key's uncommitted holder").atMost(Duration.ofSeconds(10))
                    .until(() -> h.waitingOn(holder, "WITH input AS") > 0);  // (the text is cut before INSERT)
            Thread.sleep(3_000);  // elapsed time is the subject: the insert waits past its 2 s lease
            holder.rollback();
            List<Inserted> ids = insert.get(10, TimeUnit.SECONDS);
            long started = ids.get(0).id();
            assertThat(EngineInternals.reaper(e).runOnce()).as("rows reaped right after the insert committed").isZero();
            assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + started
                    + " AND status = 'executing' AND lease_expires_at > now()")).isEqualTo(1);
            await().alias("the started row runs").atMost(Duration.ofSeconds(10))
                    .until(() -> fsm.runs.containsKey("started"));
        }
        fsm.open.countDown();
        h.awaitDone(2);
        assertThat(fsm.runs.get("started")).hasValue(1);
    }
}
