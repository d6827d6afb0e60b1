package io.gendurable.impl.flush;

import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.InstanceSnapshot;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Probe;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The claim's fencing: a write made for a claim that is no longer the row's latest commits
 * nothing, and gives back nothing it does not hold. Both tests drive real engines through the
 * interleavings an independent review found (issue 13, defects 1 and 3); the lease lapse is made
 * by moving {@code lease_expires_at} into the past, which is what a paused or partitioned worker
 * looks like to the reaper.
 */
@EngineTest
class FencingTest {
    /** @param label names the instance for the test's latches */
    public record Task(String label) {
    }

    /**
     * Step "a" by run number: run 1 holds until released, then ends the instance; run 2 moves on
     * to step "a" again (a {@code next}, which resets the attempt to 1); run 3 holds, then ends.
     * Step "hold" (the gate test) holds until released.
     */
    public static class Runs implements Fsm<Task> {
        final AtomicInteger runs = new AtomicInteger();
        final Map<Integer, CountDownLatch> entered = new ConcurrentHashMap<>();
        final Map<Integer, CountDownLatch> released = new ConcurrentHashMap<>();
        final Map<String, CountDownLatch> heldEntered = new ConcurrentHashMap<>();
        final Map<String, CountDownLatch> heldReleased = new ConcurrentHashMap<>();
        final Map<Integer, CountDownLatch> returned = new ConcurrentHashMap<>();

        CountDownLatch latch(Map<Integer, CountDownLatch> m, int run) {
            return m.computeIfAbsent(run, k -> new CountDownLatch(1));
        }

        CountDownLatch latch(Map<String, CountDownLatch> m, String label) {
            return m.computeIfAbsent(label, k -> new CountDownLatch(1));
        }

        @Override
        public Outcome step(String step, Task t, StepContext ctx) throws Exception {
            if (step.equals("hold")) {
                latch(heldEntered, t.label()).countDown();
                if (!latch(heldReleased, t.label()).await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(t.label() + " was never released");
                }
                return Outcome.done();
            }
            int run = runs.incrementAndGet();
            latch(entered, run).countDown();
            try {
                if (run == 2) {
                    return Outcome.next("a", t);
                }
                if (!latch(released, run).await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("run " + run + " was never released");
                }
                return Outcome.done(Map.of("by", "run " + run));
            } finally {
                latch(returned, run).countDown();
            }
        }
    }

    EngineHarness h;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
    }

    private static void awaitLatch(CountDownLatch l, String what) throws InterruptedException {
        assertThat(l.await(20, TimeUnit.SECONDS)).as(what).isTrue();
    }

    /**
     * Defect 3, the ABA of the old guard {@code (locked_by, attempt)}. One worker W:
     * <ol>
     * <li>W claims X at attempt 1; run 1 starts and stalls (a long GC pause, a lost network);</li>
     * <li>its lease lapses; the reaper returns X to runnable at attempt 2;</li>
     * <li>W claims X again (attempt 2); run 2 commits {@code next}, which resets the attempt to 1;</li>
     * <li>W claims X again at attempt 1; run 3 starts;</li>
     * <li>run 1 finishes and flushes {@code done}: its guard, (W, attempt 1, executing), matches
     *     run 3's claim, so the old outcome ended the instance under a running step.</li>
     * </ol>
     * With a fencing token per claim, run 1's outcome is stale and run 3's is the one that counts.
     */
    @Test
    void a_late_outcome_of_an_earlier_claim_by_the_same_worker_commits_nothing() throws Exception {
        Runs fsm = new Runs();
        Engine e = h.start("aba", c -> c.queues(Map.of("default", 3)).lease(Duration.ofSeconds(60),
                Duration.ofSeconds(25)), fsm);
        long x = e.insert(Runs.class, new Task("x"), InsertOptions.builder().step("a").build()).id();
        awaitLatch(fsm.latch(fsm.entered, 1), "run 1 started");
        String worker1 = lockedBy(x);

        h.exec("UPDATE gen_durable SET lease_expires_at = now() - interval '1 second' WHERE id = " + x);
        assertThat(EngineInternals.reaper(e).runOnce()).isEqualTo(1);

        awaitLatch(fsm.latch(fsm.entered, 3), "run 3 started");
        assertThat(lockedBy(x)).as("the same worker holds every claim").isEqualTo(worker1);
        assertThat(h.queryLong("SELECT attempt FROM gen_durable WHERE id = " + x)).isEqualTo(1);

        long staleBefore = e.metrics().stale.sum();
        fsm.latch(fsm.released, 1).countDown();
        awaitLatch(fsm.latch(fsm.returned, 1), "run 1 returned");
        await().atMost(Duration.ofSeconds(10)).until(() -> e.metrics().stale.sum() > staleBefore
                || !"executing".equals(status(x)));
        assertThat(status(x)).as("run 3 still holds the row").isEqualTo("executing");
        assertThat(e.metrics().stale.sum()).isEqualTo(staleBefore + 1);

        fsm.latch(fsm.released, 3).countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(x).map(InstanceSnapshot::status).orElseThrow() == Status.DONE);
        assertThat(e.find(x).orElseThrow().result().toString()).contains("run 3");
    }

    /**
     * Defect 1, over-admission after a drain. Node A (concurrency 1, prefetch 4, gate {@code api}
     * limit 5) holds 1 running row and 4 buffered ones, all admitted (5 slots debited). A loses the
     * database longer than the lease; the reaper returns the 4 buffered rows to runnable (their
     * slots are not credited: the safe direction); the reconciler heals the counter to 4 free;
     * node B claims and admits the 4 (5 running, correct). A's running step ends (1 slot back), then
     * A is undeployed: its drain release matched none of the 4 rows (B holds them) but credited 4
     * slots, so the gate showed 5 free with 4 running: 9 could run against a limit of 5.
     */
    @Test
    void a_drain_credits_only_the_slots_of_the_claims_it_actually_released() throws Exception {
        Runs fsm = new Runs();
        LimitsConfig gate = new LimitsConfig(Map.of(), Map.of("api", new LimitsConfig.Gate("api", 5, 1)));
        Engine a = h.start("a", c -> c.queues(Map.of("default", 1)).prefetch(4).minDemand(1)
                .lease(Duration.ofSeconds(60), Duration.ofSeconds(25)).limits(gate), fsm);
        List<NewInstance> tasks = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            tasks.add(new NewInstance(Runs.class.getName(), new Task("t" + i),
                    InsertOptions.builder().step("hold").concurrencyKey("api:t").build()));
        }
        List<Long> ids = a.insertAll(tasks).stream().map(io.gendurable.Inserted::id).toList();
        await().atMost(Duration.ofSeconds(10)).until(() -> executing() == 5 && entered(fsm) == 1);
        assertThat(available()).isZero();
        String running = tasks.stream().map(t -> ((Task) t.state()).label())
                .filter(l -> fsm.latch(fsm.heldEntered, l).getCount() == 0).findFirst().orElseThrow();
        long runningId = ids.get(Integer.parseInt(running.substring(1)));

        // A "loses the database": the leases of its 4 buffered claims lapse and B's reaper takes them.
        h.exec("UPDATE gen_durable SET lease_expires_at = now() - interval '1 second' "
                + "WHERE status = 'executing' AND id <> " + runningId);
        Engine b = h.start("b", c -> c.queues(Map.of("default", 4)).prefetch(0)
                .lease(Duration.ofSeconds(60), Duration.ofSeconds(25)).limits(gate), fsm);
        assertThat(EngineInternals.reaper(b).runOnce()).isEqualTo(4);
        // The reconciler skips a counter row another transaction holds (B's admission may be
        // denying right then): run it until B has taken the 4 (the GC loop, off here, would).
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> {
            EngineInternals.gc(b).reconcileGates();
            return entered(fsm) == 5;
        });
        assertThat(executing()).isEqualTo(5);
        assertThat(available()).isZero();

        fsm.latch(fsm.heldReleased, running).countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> executing() == 4);
        assertThat(available()).isEqualTo(1);

        a.stop();
        assertThat(executing()).as("B's four still run").isEqualTo(4);
        assertThat(available()).as("free slots = limit − running").isEqualTo(1);

        for (int i = 0; i < 5; i++) {
            fsm.latch(fsm.heldReleased, "t" + i).countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> executing() == 0);
        assertThat(available()).isEqualTo(5);
    }

    private static long entered(Runs fsm) {
        return fsm.heldEntered.values().stream().filter(l -> l.getCount() == 0).count();
    }

    private long executing() {
        return h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'");
    }

    private long available() {
        return h.queryLong("SELECT COALESCE(sum(available), -1)::bigint FROM gen_durable_buckets "
                + "WHERE kind = 'conc' AND key = 'api:t'");
    }

    private String lockedBy(long id) {
        return new Probe(h).string("SELECT locked_by FROM gen_durable WHERE id = " + id);
    }

    private String status(long id) {
        return new Probe(h).string("SELECT status::text FROM gen_durable WHERE id = " + id);
    }
}
