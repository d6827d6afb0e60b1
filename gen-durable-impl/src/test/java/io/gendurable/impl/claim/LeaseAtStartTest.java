package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Outcome;
import io.gendurable.SignalTarget;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.JdbcSpy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A claim whose lease has lapsed by the time its row is this node's (issue 35, defect 2). The
 * transaction that takes the claim commits; before the node starts the step, the engine clock
 * moves two leases on (a statement or commit slower than the lease: a correlation key's
 * {@code ON CONFLICT} waiting for a caller's open transaction, a pool wait, a paused JVM), the
 * reaper takes the row and another node claims it. Each path that takes a claim is driven: the
 * queue's claim, the insert's own claim (start at insert) and the claim by id in a signal's
 * transaction. The node used to run the step anyway, beside the other node: the step ran twice
 * under two claims. Now a step starts only while its claim's lease is live: a claim close to
 * lapsing is renewed first, fenced by its token, and a claim that can no longer be renewed is
 * not run.
 */
@EngineTest
class LeaseAtStartTest {
    public record Item(int n) {
    }

    /** Step "start" counts its runs; with {@code park}, it first awaits signal "go". */
    public static class Counted implements Fsm<Item> {
        final AtomicInteger runs = new AtomicInteger();
        final CountDownLatch ran = new CountDownLatch(1);

        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            if (step.equals("park")) {
                return Outcome.await(Set.of("go"), "start", s);
            }
            runs.incrementAndGet();
            ran.countDown();
            return Outcome.done();
        }
    }

    /** An engine clock the test moves. */
    static final class Clock implements InstantSource {
        final AtomicReference<Instant> now = new AtomicReference<>(Instant.now());

        @Override
        public Instant instant() {
            return now.get();
        }
    }

    private static final Duration TTL = Duration.ofSeconds(10);

    @Test
    void a_queue_claim_that_lapsed_before_its_step_started_does_not_run(EngineHarness h) throws Exception {
        lapsesAtCommit(h, false, sql -> sql.contains("SET status = 'executing'") && sql.contains("row_number()"), false);
    }

    @Test
    void an_insert_claim_that_lapsed_before_its_step_started_does_not_run(EngineHarness h) throws Exception {
        lapsesAtCommit(h, true, sql -> sql.startsWith("WITH") && sql.contains("INSERT INTO"), false);
    }

    @Test
    void a_wake_up_claim_that_lapsed_before_its_step_started_does_not_run(EngineHarness h) throws Exception {
        lapsesAtCommit(h, true, sql -> sql.contains("SET status = 'executing'") && sql.contains("WHERE g.id = ? AND"), true);
    }

    /**
     * @param claimSql names the statement that takes the claim: the commit of its transaction is
     *                 where the lease lapses, the row is reaped, and another node claims it
     */
    private void lapsesAtCommit(EngineHarness h, boolean startAtInsert, Predicate<String> claimSql, boolean viaSignal)
            throws Exception {
        Clock clock = new Clock();
        AtomicBoolean armed = new AtomicBoolean();
        AtomicBoolean fired = new AtomicBoolean();
        h.wrapDataSource(ds -> JdbcSpy.connections(ds, c -> {
            AtomicBoolean took = new AtomicBoolean();
            return JdbcSpy.around(c, (method, args, call) -> {
                String sql = JdbcSpy.preparedSql(method, args);
                if (sql != null && armed.get() && claimSql.test(sql)) {
                    took.set(true);
                }
                if (method.getName().equals("rollback")) {
                    took.set(false);
                }
                Object r = call.proceed();
                // (a claim that took no row, an idle poll, leaves the test armed)
                if (method.getName().equals("commit") && took.getAndSet(false) && armed.get()
                        && lapseAndReclaimElsewhere(h, clock)) {
                    armed.set(false);
                    fired.set(true);
                }
                return r;
            });
        }));
        Counted fsm = new Counted();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 2)).startAtInsert(startAtInsert)
                .lease(TTL, Duration.ofSeconds(4)), clock, fsm);
        long id;
        if (viaSignal) {
            id = e.insert(Counted.class, new Item(1), InsertOptions.builder().step("park").build()).id();
            await().alias("parked").atMost(Duration.ofSeconds(10)).until(() -> "awaiting_signal".equals(
                    h.queryString("SELECT status::text FROM gen_durable WHERE id = " + id)));
            armed.set(true);
            e.signal(SignalTarget.id(id), "go", null);
        } else {
            armed.set(true);
            id = e.insert(Counted.class, new Item(1)).id();
        }
        await().alias("the claim's transaction committed and lapsed").atMost(Duration.ofSeconds(30)).untilTrue(fired);
        assertThat(h.queryString("SELECT locked_by FROM gen_durable WHERE id = " + id))
                .as(h.queryString("SELECT status || ' ' || coalesce(last_error, '-') || ' attempt ' || attempt FROM gen_durable WHERE id = " + id))
                .isEqualTo("elsewhere");
        // Elapsed time is the subject: the step must not start on this node within a second.
        assertThat(fsm.ran.await(1, TimeUnit.SECONDS)).as("the lapsed claim's step ran here").isFalse();
        assertThat(fsm.runs).hasValue(0);
    }

    /**
     * Two leases pass; the lapsed claim is reaped and claimed by another node in one statement (as a
     * reaper and that node's claim would leave it, with no poke of this node's queue in between).
     */
    private static boolean lapseAndReclaimElsewhere(EngineHarness h, Clock clock) {
        // An idle poll's commit must not move the clock: an insert reading it meanwhile would be
        // scheduled two leases ahead and never become due within the test.
        if (h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'"
                + " AND locked_by IS DISTINCT FROM 'elsewhere'") == 0) {
            return false;
        }
        Instant now = clock.now.updateAndGet(t -> t.plus(TTL.multipliedBy(2)));
        long taken = h.queryLong("WITH u AS (UPDATE gen_durable SET locked_by = 'elsewhere', attempt = attempt + 1, "
                + "claim_token = nextval('gen_durable_claim_token'), lease_expires_at = now() + interval '1 hour' "
                + "WHERE status = 'executing' AND lease_expires_at < '" + now + "'::timestamptz RETURNING 1) "
                + "SELECT count(*) FROM u");
        if (taken == 0) {
            clock.now.updateAndGet(t -> t.minus(TTL.multipliedBy(2)));  // the lease was renewed meanwhile
        }
        return taken == 1;
    }
}
