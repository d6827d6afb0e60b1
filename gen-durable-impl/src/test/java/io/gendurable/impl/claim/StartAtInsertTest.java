package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Item;
import io.gendurable.impl.support.Fsms.Noop;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code gendurable.start-at-insert}: a new row that can start at once is claimed by its own
 * insert for a free slot of the inserting node (one commit from insert to step start, no claim
 * statement), and is then held exactly as a claimed row is: counted in the queue's concurrency,
 * heartbeated, fenced by the token its insert stamped. Rows that need a claim's checks (a
 * concurrency key, a rate limit, a correlation key, a future due time) and queues paused
 * cluster-wide are left to the claim.
 */
@EngineTest
class StartAtInsertTest {
    /** Holds every step until {@link #open} counts down; counts runs per item and the most running at once. */
    public static class Held implements Fsm<Item> {
        final CountDownLatch open = new CountDownLatch(1);
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger maxRunning = new AtomicInteger();
        final Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            runs.computeIfAbsent(s.n(), k -> new AtomicInteger()).incrementAndGet();
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                open.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
            }
            return Outcome.done();
        }
    }

    /** Parks on signal {@code go}, then records the payloads of the signals it was woken with. */
    public static class Waiter implements Fsm<Item> {
        final Map<Integer, List<String>> woken = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            if (step.equals("start")) {
                return Outcome.await(java.util.Set.of("go"), "woken", s);
            }
            woken.merge(s.n(), ctx.awaited().stream().map(sig -> sig.payload().as(String.class)).toList(),
                    (a, b) -> java.util.stream.Stream.concat(a.stream(), b.stream()).toList());
            return Outcome.done();
        }
    }

    @Test
    void an_idle_queue_starts_a_new_row_at_its_insert_without_a_claim(EngineHarness h) {
        Noop fsm = new Noop();
        Engine e = h.start("n1", c -> c, fsm);
        await().atMost(Duration.ofSeconds(10)).until(() -> e.metrics().picks.sum() >= 1);  // the start's fill, empty

        long id = e.insert(Noop.class, new Item(1)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(e.metrics().startedAtInsert.sum()).isEqualTo(1);
        assertThat(e.metrics().picked.sum()).as("rows a claim took").isZero();
        assertThat(fsm.runs.get()).isEqualTo(1);
        assertThat(e.metrics().stale.sum()).isZero();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + id
                + " AND claim_token IS NULL AND locked_by IS NULL AND lease_expires_at IS NULL")).isEqualTo(1);
    }

    @Test
    void rows_started_at_insert_count_in_the_concurrency_and_the_rest_wait_for_a_claim(EngineHarness h) {
        Held fsm = new Held();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 2)), fsm);
        for (int i = 0; i < 6; i++) {
            e.insert(Held.class, new Item(i));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.running.get() == 2);
        assertThat(e.metrics().startedAtInsert.sum()).as("a slot each for the first two").isEqualTo(2);
        // a fill of the full queue (it may prefetch the other four, never start them)
        long woken = e.metrics().loops.now();
        EngineInternals.schedulers(e).forEach(Scheduler::wake);
        awaitFillOver(e, woken, "a fill of queue default woken while both slots were taken has run and is over");
        assertThat(fsm.maxRunning.get()).isEqualTo(2);

        fsm.open.countDown();
        h.awaitDone(6);
        assertThat(fsm.maxRunning.get()).isEqualTo(2);
        assertThat(fsm.runs).hasSize(6);
        assertThat(fsm.runs.values()).allSatisfy(r -> assertThat(r.get()).isEqualTo(1));
        assertThat(e.metrics().startedAtInsert.sum() + e.metrics().picked.sum()).isEqualTo(6);
        assertThat(e.metrics().stale.sum()).isZero();
    }

    @Test
    void rows_that_need_a_claims_checks_are_left_to_the_claim(EngineHarness h) {
        Noop fsm = new Noop();
        Engine e = h.start("n1", c -> c, fsm);
        e.insertAll(List.of(
                NewInstance.of(Noop.class, new Item(1), InsertOptions.builder().concurrencyKey("k:1").build()),
                NewInstance.of(Noop.class, new Item(2), InsertOptions.builder().correlationKey("order-2").build()),
                NewInstance.of(Noop.class, new Item(3), InsertOptions.builder().scheduleIn(Duration.ofMillis(300)).build())));

        h.awaitDone(3);
        assertThat(e.metrics().startedAtInsert.sum()).isZero();
        assertThat(e.metrics().picked.sum()).isEqualTo(3);
        assertThat(fsm.runs.get()).isEqualTo(3);
    }

    @Test
    void off_every_new_row_waits_for_a_claim(EngineHarness h) {
        Noop fsm = new Noop();
        Engine e = h.start("n1", c -> c.startAtInsert(false), fsm);
        for (int i = 0; i < 5; i++) {
            e.insert(Noop.class, new Item(i));
        }
        h.awaitDone(5);
        assertThat(e.metrics().startedAtInsert.sum()).isZero();
        assertThat(e.metrics().picked.sum()).isEqualTo(5);
    }

    @Test
    void a_queue_paused_by_another_node_is_not_claimed_by_an_insert_that_has_not_seen_the_pause(EngineHarness h) {
        Noop fsm = new Noop();
        // polls (and this node's refresh of the paused queues) every 10 s: its view stays stale
        Engine e = h.start("n1", c -> c.poll(Duration.ofSeconds(10), Duration.ofSeconds(10)), fsm);
        // the start's refresh (this node's view: not paused) and its first fill (an empty claim) are over
        assertThat(e.metrics().loops.get("paused-queues refresh")).as("the start read the paused queues")
                .hasValueSatisfying(t -> assertThat(t.succeeded()).isPositive());
        await().alias("the start's first fill of queue default has claimed (nothing) and is over")
                .atMost(Duration.ofSeconds(10)).until(() -> e.metrics().emptyPicks.sum() >= 1);
        awaitFillOver(e, 0, "the start's first fill of queue default is over");
        h.exec("INSERT INTO gen_durable_paused_queues (queue, paused_by, reason) VALUES ('default', 'n2', 'test')");

        long id = e.insert(Noop.class, new Item(1)).id();

        assertThat(e.find(id).orElseThrow().status()).isEqualTo(Status.RUNNABLE);
        assertThat(e.metrics().startedAtInsert.sum()).isZero();
        // the slot reserved for it was given back: once resumed, the queue runs it
        assertThat(e.operations().resumeQueue("default")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(fsm.runs.get()).isEqualTo(1);
    }

    @Test
    void a_row_started_at_insert_is_heartbeated_and_runs_once_past_its_first_lease(EngineHarness h) {
        Held fsm = new Held();
        // a 2 s lease, renewed every 300 ms; the reaper looks every 200 ms
        Engine e = h.start("n1", c -> c.lease(Duration.ofSeconds(2), Duration.ofMillis(300))
                .reaper(new io.gendurable.impl.config.EngineConfig.ReaperConfig(true, Duration.ofMillis(200), 1000)), fsm);
        long id = e.insert(Held.class, new Item(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.running.get() == 1);
        assertThat(e.metrics().startedAtInsert.sum()).isEqualTo(1);

        // elapsed time is the point: past the 2 s lease the insert stamped, only heartbeats keep the row
        sleep(3500);  // beyond the insert's lease: only the heartbeat keeps the row this node's
        assertThat(e.metrics().reaped.sum()).isZero();
        fsm.open.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(fsm.runs.get(1).get()).isEqualTo(1);
        assertThat(e.metrics().stale.sum()).isZero();
    }

    @Test
    void a_signal_that_wakes_a_row_starts_it_in_its_own_transaction_with_its_inbox(EngineHarness h) {
        Waiter fsm = new Waiter();
        Engine e = h.start("n1", c -> c, fsm);
        long id = e.insert(Waiter.class, new Item(7)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.AWAITING_SIGNAL);
        long startedBefore = e.metrics().startedAtInsert.sum();
        long pickedBefore = e.metrics().picked.sum();

        assertThat(e.signal(io.gendurable.SignalTarget.id(id), "go", "payload-1")).isEqualTo(io.gendurable.SignalResult.DELIVERED);

        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(e.metrics().startedAtInsert.sum() - startedBefore).as("started by its wake-up").isEqualTo(1);
        assertThat(e.metrics().picked.sum() - pickedBefore).as("rows a claim took").isZero();
        assertThat(fsm.woken).containsExactly(Map.entry(7, List.of("payload-1")));
        assertThat(e.metrics().stale.sum()).isZero();
        assertThat(h.queryLong("SELECT count(*) FROM signals")).as("the inbox consumed").isZero();
    }

    @Test
    void off_a_woken_row_waits_for_a_claim(EngineHarness h) {
        Waiter fsm = new Waiter();
        Engine e = h.start("n1", c -> c.startAtInsert(false), fsm);
        long id = e.insert(Waiter.class, new Item(7)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.AWAITING_SIGNAL);
        e.signal(io.gendurable.SignalTarget.id(id), "go", "payload-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(e.metrics().startedAtInsert.sum()).isZero();
        assertThat(e.metrics().picked.sum()).isEqualTo(2);
        assertThat(fsm.woken).containsExactly(Map.entry(7, List.of("payload-1")));
    }

    @Test
    void a_woken_row_that_needs_a_claims_checks_is_left_to_the_claim(EngineHarness h) {
        Waiter fsm = new Waiter();
        Engine e = h.start("n1", c -> c, fsm);
        long id = e.insertAll(List.of(NewInstance.of(Waiter.class, new Item(3),
                InsertOptions.builder().concurrencyKey("k:3").build()))).get(0).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.AWAITING_SIGNAL);
        long pickedBefore = e.metrics().picked.sum();
        e.signal(io.gendurable.SignalTarget.id(id), "go", "payload-3");
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(e.metrics().startedAtInsert.sum()).isZero();
        assertThat(e.metrics().picked.sum() - pickedBefore).isEqualTo(1);
        assertThat(fsm.woken).containsExactly(Map.entry(3, List.of("payload-3")));
    }

    /**
     * Waits until an iteration of queue {@code default}'s fill loop that began after {@code since}
     * has returned (and none has begun since).
     *
     * @param e     the engine
     * @param since a reading of {@code e.metrics().loops.now()}
     * @param what  the precondition, named when it is not met in time
     */
    private static void awaitFillOver(Engine e, long since, String what) {
        await().alias(what).atMost(Duration.ofSeconds(10)).until(() -> e.metrics().loops.get("claim of queue default")
                .filter(t -> t.began() > since && t.succeeded() >= t.began()).isPresent());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
