package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Item;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A busy queue's next claim rides a flush transaction (its first statement): one commit for the
 * outcomes and the claim. The rows it claims are this node's only if that transaction commits:
 * a flush that rolls back takes its claim with it, and none of those rows runs under the
 * rolled-back claim's fencing token.
 *
 * <p>Both tests force a claim to ride a flush rather than wait for one to happen (issue 32: under
 * load a whole run had none): the first claim takes {@code concurrency + prefetch} rows (the queue
 * is backlogged), every step waits at a gate, and one step is let through. Its outcome's flush
 * opens with one free slot, a full buffer and the fill left to the flush (with a minimum demand of
 * one row): that flush carries the queue's next claim as its first statement.
 */
@EngineTest
class ClaimInFlushTest {
    private static final int CONCURRENCY = 4;
    private static final int PREFETCH = 4;

    /** Counts the runs of each instance (every instance must run exactly once); steps wait at a gate. */
    public static class Counted implements Fsm<Item> {
        final Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
        final Semaphore gate = new Semaphore(0);
        final AtomicInteger entered = new AtomicInteger();

        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            entered.incrementAndGet();
            gate.acquireUninterruptibly();
            runs.computeIfAbsent(s.n(), k -> new AtomicInteger()).incrementAndGet();
            return Outcome.done();
        }

        void open() {
            gate.release(Integer.MAX_VALUE / 2);
        }
    }

    /** Starts the worker, fills its slots and buffer with one claim, and lets one step end: its flush carries a claim. */
    private static Engine startWithARidingClaim(EngineHarness h, Counted fsm, java.util.function.Predicate<Engine> rode, String what) {
        Engine e = h.start("worker", c -> c.queues(Map.of("default", CONCURRENCY)).prefetch(PREFETCH).minDemand(1), fsm);
        try {
            await().alias("the first claim took every slot and filled the buffer (" + (CONCURRENCY + PREFETCH) + " rows)")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> fsm.entered.get() == CONCURRENCY && e.metrics().picked.sum() == CONCURRENCY + PREFETCH);
            assertThat(e.metrics().picks.sum()).as("claims before the first flush").isEqualTo(1);
            fsm.gate.release();
            await().alias(what).atMost(Duration.ofSeconds(20)).until(() -> rode.test(e));
        } finally {
            fsm.open();
        }
        return e;
    }

    @Test
    void a_busy_queue_claims_inside_its_flushes_and_every_row_runs_once(EngineHarness h) {
        int n = 3000;
        Counted fsm = new Counted();
        h.insertBacklog(fsm, n);
        Engine e = startWithARidingClaim(h, fsm, w -> w.metrics().picksInFlush.sum() > 0, "the first flush carried a claim");
        h.awaitDone(n);

        long picks = e.metrics().picks.sum();
        long inFlush = e.metrics().picksInFlush.sum();
        long flushes = e.metrics().flushes.sum();
        System.out.printf("claim in flush: %d jobs, %d picks (%d in flushes), %d flushes: %.3f transactions per job%n",
                n, picks, inFlush, flushes, (double) (picks - inFlush + flushes) / n);
        assertThat(inFlush).as("claims that rode a flush").isPositive();
        assertThat(fsm.runs).hasSize(n);
        assertThat(fsm.runs.values()).allSatisfy(r -> assertThat(r.get()).isEqualTo(1));
        assertThat(e.metrics().stale.sum()).isZero();
        assertThat(e.metrics().flushErrors.sum()).isZero();
    }

    @Test
    void a_flush_that_rolls_back_takes_the_claim_that_rode_it_along(EngineHarness h) {
        int n = 2000;
        Counted fsm = new Counted();
        h.insertBacklog(fsm, n);  // (its engine creates the schema)
        // The first flush update that runs in a transaction which has also claimed rows (executing
        // rows whose xmin is this transaction) fails: the outcomes and the claim roll back together.
        h.exec("CREATE SEQUENCE fail_once");
        h.exec("CREATE SEQUENCE claimed_then_failed");
        h.exec(("""
                CREATE FUNCTION fail_a_riding_flush() RETURNS trigger LANGUAGE plpgsql AS $$
                DECLARE
                    riding bigint;
                BEGIN
                    IF NEW.status = 'done' THEN
                        SELECT count(*) INTO riding FROM %1$s.gen_durable g
                        WHERE g.status = 'executing' AND g.xmin = pg_current_xact_id()::xid;
                        IF riding > 0 THEN
                            IF nextval('%1$s.fail_once') = 1 THEN
                                PERFORM setval('%1$s.claimed_then_failed', riding);
                                RAISE EXCEPTION 'test: a flush with a riding claim fails';
                            END IF;
                        END IF;
                    END IF;
                    RETURN NEW;
                END $$""").formatted(h.schema()));
        h.exec("CREATE TRIGGER fail_a_riding_flush BEFORE UPDATE ON gen_durable FOR EACH ROW EXECUTE FUNCTION fail_a_riding_flush()");
        Engine e = startWithARidingClaim(h, fsm, w -> h.queryLong("SELECT count(*) FROM fail_once WHERE is_called") == 1,
                "the first flush, which carried a claim, failed");
        h.awaitDone(n);

        assertThat(h.queryLong("SELECT count(*) FROM fail_once WHERE is_called")).as("a flush with a riding claim failed").isEqualTo(1);
        assertThat(h.queryLong("SELECT last_value FROM claimed_then_failed")).as("rows it had claimed").isPositive();
        // The rolled-back claim's rows ran later, under claims that committed: each exactly once, no stale write.
        assertThat(fsm.runs).hasSize(n);
        assertThat(fsm.runs.values()).allSatisfy(r -> assertThat(r.get()).isEqualTo(1));
        assertThat(e.metrics().stale.sum()).isZero();
        assertThat(e.metrics().flushErrors.sum()).isEqualTo(1);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status <> 'done'")).isZero();
    }
}
