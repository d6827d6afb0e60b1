package io.gendurable.impl.await;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.EngineStoppedException;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.SignalTarget;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@EngineTest
class AwaitBridgeTest {
    public record Req(int n) {
    }

    /** start: blocks on a latch, then done or stop or park, depending on n. */
    public static class Gated implements Fsm<Req> {
        final CountDownLatch release = new CountDownLatch(1);
        volatile long committedNanos;

        /** @return a Gated whose steps never wait */
        static Gated open() {
            Gated g = new Gated();
            g.release.countDown();
            return g;
        }

        @Override
        public Outcome step(String step, Req s, StepContext ctx) throws Exception {
            if (step.equals("start")) {
                release.await(30, TimeUnit.SECONDS);
                return switch (s.n()) {
                    case 0 -> Outcome.done(Map.of("answer", 42));
                    case 1 -> Outcome.stop("declined");
                    default -> Outcome.await(Set.of("go"), "after", s);
                };
            }
            return Outcome.done(Map.of("answer", 7));
        }
    }

    @Test
    void a_same_node_result_reaches_the_waiter_within_milliseconds_of_its_commit(EngineHarness h) throws Exception {
        Gated fsm = new Gated();
        Engine e = h.start("n1", c -> c.awaitTick(Duration.ofSeconds(30)), fsm);  // no help from probes
        long id = e.insert(Gated.class, new Req(0)).id();
        CompletableFuture<AwaitResult> waiting = CompletableFuture.supplyAsync(() -> e.await(id, Duration.ofSeconds(20)));
        // running: claimed, or started by its insert (gendurable.start-at-insert)
        await().atMost(Duration.ofSeconds(5)).until(() -> e.metrics().picked.sum() + e.metrics().startedAtInsert.sum() >= 1);
        await().alias("the waiter has read the unsettled row and parked on its future before the result exists")
                .atMost(Duration.ofSeconds(5)).until(() -> EngineInternals.parkedAwaiters(e) == 1);
        long t0 = System.nanoTime();
        fsm.release.countDown();
        AwaitResult r = waiting.get(10, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf("await bridge, same node: result %d ms after the step was released%n", ms);
        assertThat(r).isInstanceOf(AwaitResult.Done.class);
        assertThat(((AwaitResult.Done) r).result().json()).contains("42");
        assertThat(ms).isLessThan(500);  // the commit itself takes a flush (10 ms max-delay) and a round trip
    }

    @Test
    void a_result_committed_by_another_node_arrives_within_a_few_ticks(EngineHarness h) throws Exception {
        Gated fsm = new Gated();
        Engine web = h.start("web", c -> c.queues(Map.of()).awaitTick(Duration.ofMillis(25)), fsm);
        Engine worker = h.start("worker", c -> c, fsm);
        long id = web.insert(Gated.class, new Req(0)).id();
        await().atMost(Duration.ofSeconds(5)).until(() -> worker.metrics().picked.sum() >= 1);
        CompletableFuture<AwaitResult> waiting = CompletableFuture.supplyAsync(() -> web.await(id, Duration.ofSeconds(20)));
        await().alias("the waiter on web has read the unsettled row and parked on its future before the result exists")
                .atMost(Duration.ofSeconds(5)).until(() -> EngineInternals.parkedAwaiters(web) == 1);
        fsm.release.countDown();
        AwaitResult r = waiting.get(10, TimeUnit.SECONDS);
        assertThat(r).isInstanceOf(AwaitResult.Done.class);
        assertThat(web.metrics().awaitProbes.sum()).isPositive();
    }

    @Test
    void the_deadline_answers_busy_while_the_work_goes_on_and_asking_again_gets_the_result(EngineHarness h) {
        Gated fsm = new Gated();
        Engine e = h.start("n1", c -> c, fsm);
        long id = e.insert(Gated.class, new Req(0)).id();
        AwaitResult first = e.await(id, Duration.ofMillis(300));
        assertThat(first).isInstanceOf(AwaitResult.Busy.class);
        assertThat(((AwaitResult.Busy) first).snapshot().id()).isEqualTo(id);
        fsm.release.countDown();
        AwaitResult second = e.await(id, Duration.ofSeconds(10));
        assertThat(second).isInstanceOf(AwaitResult.Done.class);
    }

    @Test
    void failed_parked_and_missing_instances_answer_failed_awaiting_and_not_found(EngineHarness h) {
        Engine e = h.start("n1", c -> c, Gated.open());
        long failing = e.insert(Gated.class, new Req(1)).id();
        long parking = e.insert(Gated.class, new Req(2)).id();
        assertThat(e.await(failing, Duration.ofSeconds(10))).isEqualTo(new AwaitResult.Failed(failing, "declined"));
        AwaitResult parked = e.await(parking, Duration.ofSeconds(10));
        assertThat(parked).isInstanceOf(AwaitResult.Awaiting.class);
        assertThat(((AwaitResult.Awaiting) parked).snapshot().awaits()).containsExactly("go");
        assertThat(e.await(987654321L, Duration.ofSeconds(1))).isEqualTo(new AwaitResult.NotFound(987654321L));
    }

    @Test
    void until_terminal_waits_through_a_park_to_the_end(EngineHarness h) throws Exception {
        Engine e = h.start("n1", c -> c, Gated.open());
        long id = e.insert(Gated.class, new Req(2)).id();
        CompletableFuture<AwaitResult> waiting = CompletableFuture.supplyAsync(
                () -> e.await(id, Duration.ofSeconds(20), AwaitUntil.TERMINAL));
        await().atMost(Duration.ofSeconds(5)).until(() -> e.find(id).orElseThrow().awaits().contains("go"));
        assertThat(waiting).isNotDone();
        e.signal(SignalTarget.id(id), "go", null);
        AwaitResult r = waiting.get(10, TimeUnit.SECONDS);
        assertThat(r).isInstanceOf(AwaitResult.Done.class);
        assertThat(((AwaitResult.Done) r).result().json()).contains("7");
    }

    @Test
    void a_thousand_concurrent_waiters_cost_one_probe_query_per_tick(EngineHarness h) throws Exception {
        Gated fsm = new Gated();
        Engine web = h.start("web", c -> c.queues(Map.of()).awaitTick(Duration.ofMillis(50)), fsm);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            ids.add(web.insert(Gated.class, new Req(0)).id());
        }
        ExecutorService pool = Executors.newFixedThreadPool(1000);
        try {
            List<CompletableFuture<AwaitResult>> waits = new ArrayList<>();
            for (long id : ids) {
                waits.add(CompletableFuture.supplyAsync(() -> web.await(id, Duration.ofSeconds(2)), pool));
            }
            long t0 = System.nanoTime();
            long probes0 = web.metrics().awaitProbes.sum();
            for (CompletableFuture<AwaitResult> w : waits) {
                assertThat(w.get(30, TimeUnit.SECONDS)).isInstanceOf(AwaitResult.Busy.class);
            }
            double ticks = (System.nanoTime() - t0) / 50e6;
            long probes = web.metrics().awaitProbes.sum() - probes0;
            System.out.printf("await watcher: %d probes in %.0f ticks for 1000 waiters%n", probes, ticks);
            assertThat((double) probes).isLessThanOrEqualTo(ticks + 2);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Issue 13, defect 5. Interleaving: a caller awaits an instance whose step is still running
     * (it stays {@code executing}); the engine stops underneath it (undeploy): the drain gives up
     * on the running step after {@code drain-timeout} and the persistence unit closes. Before the
     * fix the caller stayed parked until its own deadline, then read the row through the closed
     * factory and got {@code IllegalStateException: EntityManagerFactory is closed}. Now the stop
     * wakes every caller, which answers {@code Busy} with the last snapshot it read, at the stop
     * and not at its deadline (as the original does).
     */
    @Test
    void a_caller_awaiting_a_running_instance_while_the_engine_stops_gets_busy_with_its_last_snapshot(EngineHarness h) throws Exception {
        Gated fsm = new Gated();
        Engine e = h.start("n1", c -> c.drainTimeout(Duration.ofMillis(300)), fsm);
        try {
            long id = e.insert(Gated.class, new Req(0)).id();
            await().atMost(Duration.ofSeconds(5)).until(() -> e.find(id).orElseThrow().status() == Status.EXECUTING);
            CompletableFuture<AwaitResult> waiting = CompletableFuture.supplyAsync(() -> e.await(id, Duration.ofSeconds(8)));
            await().alias("the caller has read the executing row and parked on its future before the stop")
                    .atMost(Duration.ofSeconds(5)).until(() -> EngineInternals.parkedAwaiters(e) == 1);
            assertThat(waiting).isNotDone();
            long t0 = System.nanoTime();
            e.stop();
            AwaitResult r = waiting.handle((ok, err) -> {
                if (err != null) {
                    throw new AssertionError("await threw instead of answering Busy: " + err.getCause(), err.getCause());
                }
                return ok;
            }).get(20, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(r).isInstanceOf(AwaitResult.Busy.class);
            assertThat(((AwaitResult.Busy) r).snapshot().id()).isEqualTo(id);
            assertThat(((AwaitResult.Busy) r).snapshot().status()).isEqualTo(Status.EXECUTING);
            assertThat(ms).as("answered at the stop, not at the 8 s deadline").isLessThan(6_000);
        } finally {
            fsm.release.countDown();
        }
    }

    /**
     * Issue 13, defect 5, the other case: the engine has stopped before the caller read the row
     * even once (an {@code await} that arrives during or after the undeploy). There is no snapshot
     * to answer {@code Busy} with, so the call throws the documented {@link EngineStoppedException}
     * naming the instance; before the fix it was {@code IllegalStateException: EntityManagerFactory
     * is closed}, an internal error of the persistence layer.
     */
    @Test
    void an_await_after_the_engine_stopped_throws_engine_stopped_not_a_closed_factory_error(EngineHarness h) {
        Engine e = h.start("n1", c -> c, Gated.open());
        long id = e.insert(Gated.class, new Req(0)).id();
        e.stop();
        assertThatThrownBy(() -> e.await(id, Duration.ofSeconds(1))).isInstanceOf(EngineStoppedException.class)
                .hasMessageContaining("stopped").hasMessageContaining(Long.toString(id))
                .hasMessageNotContaining("EntityManagerFactory");
        assertThatThrownBy(() -> e.await(id, Duration.ZERO, AwaitUntil.TERMINAL)).isInstanceOf(EngineStoppedException.class);
    }

    @Test
    void bad_arguments_are_rejected_at_the_call(EngineHarness h) {
        Engine e = h.start("n1", c -> c.queues(Map.of()), new Gated());
        assertThatThrownBy(() -> e.await(1, Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout");
        assertThatThrownBy(() -> e.await(1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> e.await(1, Duration.ZERO, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("SETTLED");
    }
}
