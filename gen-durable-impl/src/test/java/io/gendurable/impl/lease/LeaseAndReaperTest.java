package io.gendurable.impl.lease;

import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@EngineTest
class LeaseAndReaperTest {
    public record Payload(String v) {
    }

    /** Blocks in its first step until the test lets it go. */
    public static class Blocking implements Fsm<Payload> {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public Outcome step(String step, Payload s, StepContext ctx) throws Exception {
            runs.incrementAndGet();
            if (step.equals("start")) {
                entered.countDown();
                release.await(30, TimeUnit.SECONDS);
                return Outcome.next("second", new Payload("from-" + ctx.attempt()));
            }
            return Outcome.done(s);
        }
    }

    @Test
    void a_late_outcome_of_a_reclaimed_row_commits_nothing_and_is_counted_stale(EngineHarness h) throws Exception {
        Blocking fsm = new Blocking();
        // Concurrency 1: with its only slot busy, the worker cannot re-pick the reaped row itself.
        Engine worker = h.start("worker", c -> c.queues(Map.of("default", 1)), fsm);
        long id = worker.insert(Blocking.class, new Payload("x")).id();
        assertThat(fsm.entered.await(10, TimeUnit.SECONDS)).isTrue();

        // Another node whose clock is past the lease reaps the row while the step still runs.
        TestClock later = new TestClock();
        later.advance(Duration.ofMinutes(5));
        Engine sweeper = h.start("sweeper", c -> c.queues(Map.of()), later, fsm);
        assertThat(EngineInternals.reaper(sweeper).runOnce()).isEqualTo(1);
        assertThat(sweeper.metrics().reaped.sum()).isEqualTo(1);
        var reaped = worker.find(id).orElseThrow();
        assertThat(reaped.status()).isEqualTo(Status.RUNNABLE);
        assertThat(reaped.attempt()).isEqualTo(2);

        // Hold the reclaimed row back so nobody re-picks it before we check.
        h.exec("UPDATE gen_durable SET eligible_at = now() + interval '1 hour' WHERE id = " + id);
        fsm.release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> worker.metrics().stale.sum() == 1);
        var after = worker.find(id).orElseThrow();
        assertThat(after.status()).isEqualTo(Status.RUNNABLE);
        assertThat(after.step()).isEqualTo("start");
        assertThat(after.state().as(Payload.class)).isEqualTo(new Payload("x"));
    }

    @Test
    void the_reaper_returns_expired_leases_to_runnable_with_one_more_attempt_and_the_step_runs_again(EngineHarness h) {
        AtomicInteger runs = new AtomicInteger();
        Fsm<Payload> once = new CountingJob(runs);
        Engine e = h.start("n1", c -> c.queues(Map.of()), once);
        long id = e.insert(CountingJob.class, new Payload("p")).id();
        // A worker that died holding the row: executing, lease already expired.
        h.claimedBy(id, "dead:default@00000000", "-1 second");
        assertThat(EngineInternals.reaper(e).runOnce()).isEqualTo(1);
        var row = e.find(id).orElseThrow();
        assertThat(row.status()).isEqualTo(Status.RUNNABLE);
        assertThat(row.attempt()).isEqualTo(2);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE locked_by IS NOT NULL AND id = " + id)).isZero();

        Engine runner = h.start("n2", c -> c, once);
        await().atMost(Duration.ofSeconds(10)).until(() -> runner.find(id).orElseThrow().status() == Status.DONE);
        assertThat(runs.get()).isEqualTo(1);
    }

    @Test
    void a_restarted_node_releases_its_dead_predecessors_stale_claims_at_start_but_not_a_live_twins(EngineHarness h) {
        AtomicInteger runs = new AtomicInteger();
        Fsm<Payload> job = new CountingJob(runs);
        Engine inserter = h.start("web", c -> c.queues(Map.of()), job);
        long dead = inserter.insert(CountingJob.class, new Payload("dead")).id();
        long live = inserter.insert(CountingJob.class, new Payload("live")).id();
        // Lease 30 s, heartbeat 5 s: a lease expiring within 20 s was not renewed for two heartbeats.
        h.claimedBy(dead, "n1:default@deadbeef", "10 seconds");
        h.claimedBy(live, "n1:default@twin0000", "29 seconds");

        Engine restarted = h.start("n1", c -> c, job);
        assertThat(restarted.metrics().reclaimed.sum()).isEqualTo(1);
        assertThat(restarted.metrics().queue("default").reclaimed.sum()).as("the queue's share, its metric's queue tag").isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> restarted.find(dead).orElseThrow().status() == Status.DONE);
        var twin = restarted.find(live).orElseThrow();
        assertThat(twin.status()).isEqualTo(Status.EXECUTING);
        assertThat(runs.get()).isEqualTo(1);
    }

    @Test
    void a_running_step_keeps_its_lease_alive_through_the_heartbeat(EngineHarness h) throws Exception {
        Blocking fsm = new Blocking();
        Engine e = h.start("hb", c -> c.lease(Duration.ofSeconds(2), Duration.ofMillis(200)), fsm);
        long id = e.insert(Blocking.class, new Payload("x")).id();
        assertThat(fsm.entered.await(10, TimeUnit.SECONDS)).isTrue();
        long first = h.queryLong("SELECT (extract(epoch FROM lease_expires_at) * 1000)::bigint FROM gen_durable WHERE id = " + id);
        // Renewed past the original 2 s lease: the original expiry came and went, the row is still owned.
        await().atMost(Duration.ofSeconds(8)).until(() -> h.queryLong(
                "SELECT (extract(epoch FROM lease_expires_at) * 1000)::bigint FROM gen_durable WHERE id = " + id) > first + 2500);
        assertThat(EngineInternals.reaper(e).runOnce()).isZero();
        assertThat(e.find(id).orElseThrow().status()).isEqualTo(Status.EXECUTING);
        fsm.release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(fsm.runs.get()).isEqualTo(2);
    }

    @io.gendurable.DurableFsm(maxAttempts = 3)
    public static class Poison implements Fsm<Payload> {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public Outcome step(String step, Payload s, StepContext ctx) {
            runs.incrementAndGet();
            return Outcome.done(s);
        }
    }

    @Test
    void a_row_whose_lease_keeps_expiring_fails_once_past_max_attempts_instead_of_looping(EngineHarness h) {
        Poison fsm = new Poison();
        Engine web = h.start("web", c -> c.queues(Map.of()), fsm);
        long id = web.insert(Poison.class, new Payload("p")).id();
        // As if three workers in a row died mid-step: each reap adds an attempt.
        for (int i = 0; i < 3; i++) {
            h.claimedBy(id, "dead:default@0000000" + i, "-1 second");
            assertThat(EngineInternals.reaper(web).runOnce()).isEqualTo(1);
        }
        assertThat(web.find(id).orElseThrow().attempt()).isEqualTo(4);
        Engine worker = h.start("worker", c -> c, fsm);
        await().atMost(Duration.ofSeconds(10)).until(() -> worker.find(id).orElseThrow().status() == Status.FAILED);
        assertThat(worker.find(id).orElseThrow().lastError()).contains("gave up after 3 attempts").contains("expired lease");
        assertThat(fsm.runs.get()).isZero();
    }

    /** A one-step FSM that counts its runs. */
    public static class CountingJob implements Fsm<Payload> {
        final AtomicInteger runs;

        public CountingJob(AtomicInteger runs) {
            this.runs = runs;
        }

        @Override
        public Outcome step(String step, Payload s, StepContext ctx) {
            runs.incrementAndGet();
            return Outcome.done(s);
        }
    }
}
