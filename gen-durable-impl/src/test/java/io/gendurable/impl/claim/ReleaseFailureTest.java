package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.JdbcSpy;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Buffered claims whose release fails (issue 35, defect 3). A queue of concurrency 1 with a
 * prefetch of 4 holds one running row and four buffered; the queue is paused, so its next fill
 * empties the buffer and gives the four back; the release statement fails (a dropped connection,
 * a failover). The buffer was emptied first but the claims were forgotten only after a successful
 * release: the heartbeat renewed the four leases for the life of the node, so they were never run
 * and never reaped; and the exception skipped the paused branch's next poll. Now a claim the node
 * no longer means to run stops being heartbeated whatever the release did (the reaper takes it at
 * lease expiry), and the paused branch polls again.
 */
@EngineTest
class ReleaseFailureTest {
    public record Item(int n) {
    }

    public static class Held implements Fsm<Item> {
        final CountDownLatch open = new CountDownLatch(1);
        final AtomicInteger running = new AtomicInteger();

        @Override
        public Outcome step(String step, Item s, StepContext ctx) throws InterruptedException {
            running.incrementAndGet();
            open.await(30, TimeUnit.SECONDS);
            return Outcome.done();
        }
    }

    @Test
    void buffered_claims_whose_release_failed_are_no_longer_heartbeated_and_the_paused_queue_polls_on(EngineHarness h)
            throws Exception {
        AtomicBoolean failReleases = new AtomicBoolean();
        AtomicInteger failed = new AtomicInteger();
        h.wrapDataSource(ds -> JdbcSpy.around(ds, (method, args, call) -> {
            String sql = JdbcSpy.preparedSql(method, args);
            if (sql != null && sql.contains("AS r(id, token)") && failReleases.get()) {
                failed.incrementAndGet();
                throw new SQLException("simulated: the connection was lost", "08006");
            }
            return call.proceed();
        }));
        Held fsm = new Held();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 1)).prefetch(4).minDemand(1).startAtInsert(false)
                .poll(Duration.ofMillis(50), Duration.ofMillis(50))
                .lease(Duration.ofSeconds(60), Duration.ofSeconds(25)), fsm);
        Scheduler s = EngineInternals.schedulers(e).get(0);
        List<NewInstance> items = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            items.add(NewInstance.of(Held.class, new Item(i)));
        }
        e.insertAll(items);
        await().alias("one running, four buffered").atMost(Duration.ofSeconds(10))
                .until(() -> fsm.running.get() == 1 && s.buffered() == 4);
        long runningId = h.queryLong("SELECT id FROM gen_durable WHERE status = 'executing' ORDER BY id LIMIT 1");

        failReleases.set(true);
        e.operations().pauseQueue("default", null);
        EngineInternals.pauses(e).refresh();
        await().alias("the release of the buffer failed").atMost(Duration.ofSeconds(10)).until(() -> failed.get() > 0);
        long after = e.metrics().loops.now();
        await().alias("the paused queue polls again after the failed release").atMost(Duration.ofSeconds(10))
                .until(() -> e.metrics().loops.get("claim of queue default")
                        .filter(t -> t.began() > after && t.succeeded() >= t.began()).isPresent());
        assertThat(s.buffered()).isZero();

        // The four leases lapse (as time would make them); the heartbeat must not bring them back.
        h.exec("UPDATE gen_durable SET lease_expires_at = now() - interval '1 second' WHERE status = 'executing' AND id <> "
                + runningId);
        s.heartbeatOnce();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing' AND lease_expires_at < now()"))
                .as("claims the node gave up stay lapsed").isEqualTo(4);
        assertThat(EngineInternals.reaper(e).runOnce()).as("the reaper takes them").isEqualTo(4);

        failReleases.set(false);
        fsm.open.countDown();
        e.operations().resumeQueue("default");
        EngineInternals.pauses(e).refresh();
        h.awaitDone(5);
    }
}
