package io.gendurable.impl.claim;

import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Adversary review of the queue-loop split (issue 37): a claim that rides a flush and commits
 * after its queue's {@code beginStop} released the buffer is given back as well (the ride's
 * {@code committed} reaches {@code Lane.arrived} with the scheduler stopping): a stopped queue keeps
 * no buffered claim that nothing runs or heartbeats.
 *
 * <p>Forced: the first claim fills the slots and the buffer (backlogged), one step is let through,
 * its flush carries the queue's next claim and blocks (a trigger waits for an advisory lock this test
 * holds) after that claim ran; the queue's {@code beginStop} runs; then the lock goes and the flush
 * commits its claim.
 */
@EngineTest
class StopDuringRideTest {
    private static final int CONCURRENCY = 4;
    private static final int PREFETCH = 4;
    private static final long LOCK = 570_921L;

    @Test
    void a_claim_that_rides_a_flush_committing_after_the_stop_began_goes_back(EngineHarness h) throws Exception {
        ClaimInFlushTest.Counted fsm = new ClaimInFlushTest.Counted();
        h.insertBacklog(fsm, 100);  // (its engine creates the schema)
        // a flush whose transaction has also claimed rows (executing rows whose xmin is this
        // transaction) waits for the test's advisory lock before its first outcome's update
        h.exec(("""
                CREATE FUNCTION hold_a_riding_flush() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.status = 'done' AND EXISTS (SELECT 1 FROM %1$s.gen_durable g
                            WHERE g.status = 'executing' AND g.xmin = pg_current_xact_id()::xid) THEN
                        PERFORM pg_advisory_xact_lock(%2$d);
                    END IF;
                    RETURN NEW;
                END $$""").formatted(h.schema(), LOCK));
        h.exec("CREATE TRIGGER hold_a_riding_flush BEFORE UPDATE ON gen_durable FOR EACH ROW EXECUTE FUNCTION hold_a_riding_flush()");
        try (Connection holder = h.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (Statement st = holder.createStatement()) {
                st.execute("SELECT pg_advisory_xact_lock(" + LOCK + ")");
            }
            Engine e = h.start("worker", c -> c.queues(Map.of("default", CONCURRENCY)).prefetch(PREFETCH).minDemand(1), fsm);
            Scheduler s = EngineInternals.schedulers(e).get(0);
            try {
                await().alias("the first claim took every slot and filled the buffer").atMost(Duration.ofSeconds(20))
                        .until(() -> fsm.entered.get() == CONCURRENCY && e.metrics().picked.sum() == CONCURRENCY + PREFETCH);
                assertThat(e.metrics().picks.sum()).as("claims before the first flush").isEqualTo(1);
                fsm.gate.release();  // one step ends: its flush carries the next claim, and waits for the lock
                await().alias("the flush with a riding claim waits for the lock").atMost(Duration.ofSeconds(20))
                        .until(() -> h.waitingOn(holder, "gen_durable") >= 1);
                long executingBefore = h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'");
                assertThat(executingBefore).as("3 running, 1 awaiting its flush, 4 buffered (the riding claim is not committed)")
                        .isEqualTo(CONCURRENCY + PREFETCH);

                s.beginStop(System.nanoTime() + Duration.ofSeconds(10).toNanos());  // the buffer goes back now
                assertThat(s.buffered()).isZero();

                holder.commit();  // the flush commits, with its claim
                await().alias("the claim in the flush committed").atMost(Duration.ofSeconds(20))
                        .until(() -> e.metrics().picksInFlush.sum() >= 1);
                // only the steps in their code hold claims: the three still at the gate and the buffered row
                // that took the slot of the one let through (which is done)
                await().alias("the riding claim's rows went back").atMost(Duration.ofSeconds(10))
                        .until(() -> h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'") == CONCURRENCY);
                assertThat(s.buffered()).as("nothing buffered after the stop began").isZero();
            } finally {
                fsm.open();
                e.stop();
            }
            assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'"))
                    .as("a stopped engine holds no claim").isZero();
            assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'")).isEqualTo(CONCURRENCY + 1);
            assertThat(fsm.runs.values()).allSatisfy(r -> assertThat(r.get()).isEqualTo(1));
        }
    }
}
