package io.gendurable.impl.engine;

import io.gendurable.Fsm;
import io.gendurable.FsmNames;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.events.AwaitsTimedOut;
import io.gendurable.events.ClaimsReclaimed;
import io.gendurable.events.EngineEvent;
import io.gendurable.events.EngineEventListener;
import io.gendurable.events.GateThrottled;
import io.gendurable.events.GcSwept;
import io.gendurable.events.KeyContended;
import io.gendurable.events.LeasesReaped;
import io.gendurable.events.LimitContended;
import io.gendurable.events.OperatorAction;
import io.gendurable.events.OutcomeStale;
import io.gendurable.events.QueueDrained;
import io.gendurable.events.QueueSaturation;
import io.gendurable.events.RateLimitThrottled;
import io.gendurable.events.RateLimitUnknown;
import io.gendurable.events.RowsClaimed;
import io.gendurable.events.StepCompleted;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.runtime.EngineEventBus;
import io.gendurable.impl.runtime.EventKind;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Item;
import io.gendurable.impl.support.Fsms.Noop;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The engine's events with their data, through a plain {@link EngineEventListener}: each type at
 * the place its metric is counted, none built when nobody listens, and a listener that throws or
 * blocks never holds the engine back.
 */
@EngineTest
class EngineEventsTest {

    /** Records every event it receives. */
    static final class Recorder implements EngineEventListener {
        final List<EngineEvent> events = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(EngineEvent event) {
            events.add(event);
        }

        <T extends EngineEvent> List<T> of(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    /** Step "start" blocks until released, then moves to "end". */
    public static class Holding implements Fsm<Item> {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public Outcome step(String step, Item s, StepContext ctx) throws Exception {
            if (step.equals("start")) {
                entered.countDown();
                release.await(30, TimeUnit.SECONDS);
                return Outcome.next("end", s);
            }
            return Outcome.done();
        }
    }

    /** Awaits signal "go" for 200 ms, then ends. */
    public static class Waiting implements Fsm<Item> {
        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            return step.equals("start") ? Outcome.await(Set.of("go"), "late", s, Duration.ofMillis(200)) : Outcome.done();
        }
    }

    private static Engine listened(EngineHarness h, String node, Recorder r, java.util.function.UnaryOperator<EngineConfig.Builder> tweak,
                                   Fsm<?>... fsms) {
        Engine e = h.build(node, tweak, java.time.InstantSource.system(), b -> b.listener(r), fsms);
        e.start();
        return e;
    }

    @Test
    void claims_saturation_and_drain_carry_the_queue_node_and_counts(EngineHarness h) {
        Noop fsm = new Noop();
        h.insertBacklog(fsm, 3);  // inserted before n1 runs: its claims take them (not their inserts)
        Recorder r = new Recorder();
        Engine e = listened(h, "n1", r, c -> c, fsm);
        h.awaitDone(3);
        await().atMost(Duration.ofSeconds(5)).until(() -> r.of(StepCompleted.class).size() == 3);

        assertThat(r.of(RowsClaimed.class)).isNotEmpty().allSatisfy(c -> {
            assertThat(c.queue()).isEqualTo("default");
            assertThat(c.node()).isEqualTo("n1");
            assertThat(c.count()).isBetween(0, c.demand());
        });
        assertThat(r.of(RowsClaimed.class).stream().mapToInt(RowsClaimed::count).sum()).as("rows claimed").isEqualTo(3);
        assertThat(r.of(QueueSaturation.class)).isNotEmpty().allSatisfy(s -> {
            assertThat(s.queue()).isEqualTo("default");
            assertThat(s.concurrency()).isEqualTo(4);
            assertThat(s.prefetch()).isGreaterThanOrEqualTo(0);
            assertThat(s.running() + s.buffer()).isLessThanOrEqualTo(s.concurrency() + s.prefetch());
        });

        e.operations().pauseQueue("other", "maintenance");
        await().atMost(Duration.ofSeconds(5)).until(() -> !r.of(OperatorAction.class).isEmpty());
        assertThat(r.of(OperatorAction.class)).singleElement().satisfies(a -> {
            assertThat(a.action()).isEqualTo(OperatorAction.Action.PAUSE_QUEUE);
            assertThat(a.target()).isEqualTo("other");
            assertThat(a.reason()).isEqualTo("maintenance");
        });

        e.stop();
        assertThat(r.of(QueueDrained.class)).containsExactly(new QueueDrained("default", 0, 0));
    }

    @Test
    void key_contention_names_the_races_lost_and_whether_the_claim_gave_up(EngineHarness h) {
        Recorder r = new Recorder();
        Engine e = listened(h, "n1", r, c -> c, new Noop());
        String s = h.schema();
        // the first three claims of a k1 row meet a K = 1 race (as ClaimContentionTest injects it)
        h.exec("CREATE SEQUENCE " + s + ".contention_injected;"
                + "CREATE FUNCTION " + s + ".inject_contention() RETURNS trigger LANGUAGE plpgsql AS $$\n"
                + "BEGIN\n"
                + "  IF OLD.status = 'runnable' AND NEW.status = 'executing' AND NEW.concurrency_key = 'k1'"
                + "     AND nextval('" + s + ".contention_injected') <= 3 THEN\n"
                + "    RAISE unique_violation USING MESSAGE = 'duplicate key value violates unique constraint "
                + "\"gen_durable_concurrency_active\"';\n"
                + "  END IF;\n"
                + "  RETURN NEW;\n"
                + "END $$;"
                + "CREATE TRIGGER inject_contention BEFORE UPDATE ON " + s + ".gen_durable"
                + " FOR EACH ROW EXECUTE FUNCTION " + s + ".inject_contention();");
        long id = e.insert(Noop.class, new Item(1), InsertOptions.builder().concurrencyKey("k1").build()).id();
        await().atMost(Duration.ofSeconds(15)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);

        await().atMost(Duration.ofSeconds(5)).until(() -> !r.of(KeyContended.class).isEmpty());
        assertThat(r.of(KeyContended.class)).containsExactly(new KeyContended("default", 3, true));
        assertThat(r.of(LimitContended.class)).as("a K = 1 race is not a limit's").isEmpty();
    }

    @Test
    void gates_and_rate_limits_name_the_key_and_what_was_wanted_and_admitted(EngineHarness h) {
        Noop fsm = new Noop();
        LimitsConfig limits = new LimitsConfig(
                Map.of("api", new LimitsConfig.RateLimit("api", 1, Duration.ofHours(1), 1, 1)),
                Map.of("g", new LimitsConfig.Gate("g", 1, 1)));
        // the backlog first, so one claim takes every row of a key
        Engine web = h.start("web", c -> c.queues(Map.of()).limits(limits), fsm);
        String name = FsmNames.nameOf(Noop.class);
        List<NewInstance> rows = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            rows.add(new NewInstance(name, new Item(i), InsertOptions.builder().concurrencyKey("g:a").build()));
            rows.add(new NewInstance(name, new Item(i), InsertOptions.builder().rateLimit("api").build()));
        }
        rows.add(new NewInstance(name, new Item(9), InsertOptions.builder().rateLimit("nope").build()));
        web.insertAll(rows);
        // the bucket of "api" is minted by the first admission; a racing node's mint is injected once
        String s = h.schema();
        h.exec("CREATE SEQUENCE " + s + ".mint_injected;"
                + "CREATE FUNCTION " + s + ".inject_mint_race() RETURNS trigger LANGUAGE plpgsql AS $$\n"
                + "BEGIN\n"
                + "  IF nextval('" + s + ".mint_injected') = 1 THEN\n"
                + "    RAISE unique_violation USING MESSAGE = 'duplicate key value violates unique constraint';\n"
                + "  END IF;\n"
                + "  RETURN NEW;\n"
                + "END $$;"
                + "CREATE TRIGGER inject_mint_race BEFORE INSERT ON " + s + ".gen_durable_buckets"
                + " FOR EACH ROW EXECUTE FUNCTION " + s + ".inject_mint_race();");

        Recorder r = new Recorder();
        listened(h, "n1", r, c -> c.queues(Map.of("default", 16)).limits(limits), fsm);
        await().atMost(Duration.ofSeconds(15)).until(() -> !r.of(GateThrottled.class).isEmpty()
                && !r.of(RateLimitThrottled.class).isEmpty() && !r.of(RateLimitUnknown.class).isEmpty());

        GateThrottled gate = r.of(GateThrottled.class).get(0);
        assertThat(gate.key()).isEqualTo("g:a");
        assertThat(gate.queue()).isEqualTo("default");
        assertThat(gate.wanted()).isGreaterThan(gate.admitted());
        assertThat(gate.admitted()).isLessThanOrEqualTo(1);
        RateLimitThrottled rate = r.of(RateLimitThrottled.class).get(0);
        assertThat(rate.key()).isEqualTo("api");
        assertThat(rate.queue()).isEqualTo("default");
        assertThat(rate.granted()).isLessThan(rate.wanted()).isLessThanOrEqualTo(1);
        assertThat(r.of(RateLimitUnknown.class).get(0)).isEqualTo(new RateLimitUnknown("nope", "nope", name, "start"));
        assertThat(r.of(LimitContended.class)).containsExactly(new LimitContended("default", 1));
        assertThat(r.of(KeyContended.class)).isEmpty();
    }

    @Test
    void reclaimed_reaped_stale_await_timeouts_and_gc_carry_their_counts(EngineHarness h) throws Exception {
        // a dead predecessor of n1's default queue left a claim behind
        Engine web = h.start("web", c -> c.queues(Map.of()), new Noop());
        long orphan = web.insert(Noop.class, new Item(0)).id();
        h.claimedBy(orphan, "n1:default@dead0000", "-1 minute");

        Holding holding = new Holding();
        Recorder r = new Recorder();
        Engine e = listened(h, "n1", r, c -> c.queues(Map.of("default", 1))
                .gc(new EngineConfig.GcConfig(false, Duration.ofSeconds(60), Duration.ZERO, Duration.ZERO, 10_000)),
                holding, new Noop(), new Waiting());
        await().atMost(Duration.ofSeconds(5)).until(() -> !r.of(ClaimsReclaimed.class).isEmpty());
        assertThat(r.of(ClaimsReclaimed.class)).containsExactly(new ClaimsReclaimed("default", 1));

        // a step still running when another node reaps its row: its outcome comes back stale
        long id = e.insert(Holding.class, new Item(1)).id();
        assertThat(holding.entered.await(10, TimeUnit.SECONDS)).isTrue();
        TestClock later = new TestClock();
        later.advance(Duration.ofMinutes(5));
        Recorder sweeperEvents = new Recorder();
        Engine sweeper = h.build("sweeper", c -> c.queues(Map.of()), later, b -> b.listener(sweeperEvents), holding);
        sweeper.start();
        assertThat(EngineInternals.reaper(sweeper).runOnce()).isEqualTo(1);
        h.exec("UPDATE gen_durable SET eligible_at = now() + interval '1 hour' WHERE id = " + id);
        holding.release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> !r.of(OutcomeStale.class).isEmpty());
        assertThat(r.of(OutcomeStale.class)).containsExactly(
                new OutcomeStale(id, FsmNames.nameOf(Holding.class), "start", "next"));
        await().atMost(Duration.ofSeconds(5)).until(() -> !sweeperEvents.of(LeasesReaped.class).isEmpty());
        assertThat(sweeperEvents.of(LeasesReaped.class)).containsExactly(new LeasesReaped(1));

        // an await deadline fired by the reaper's sweep
        long parked = e.insert(Waiting.class, new Item(2)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(parked).orElseThrow().status() == Status.AWAITING_SIGNAL);
        // sweeps until the 200 ms deadline has passed and one fires it
        await().atMost(Duration.ofSeconds(10)).until(() -> EngineInternals.reaper(e).fireTimeouts() == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !r.of(AwaitsTimedOut.class).isEmpty());
        assertThat(r.of(AwaitsTimedOut.class)).containsExactly(new AwaitsTimedOut(1));

        // a GC pass over the ended rows (retention zero)
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(parked).orElseThrow().status() == Status.DONE);
        EngineInternals.gc(e).pass();
        await().atMost(Duration.ofSeconds(5)).until(() -> !r.of(GcSwept.class).isEmpty());
        GcSwept swept = r.of(GcSwept.class).get(0);
        assertThat(swept.rows()).isGreaterThanOrEqualTo(2);  // the orphan's and the parked row's
        assertThat(swept.buckets()).isZero();
        assertThat(swept.gates()).isZero();
    }

    @Test
    void with_no_listener_no_event_is_built_and_no_dispatcher_runs(EngineHarness h) {
        Engine e = h.start("n1", c -> c, new Noop());
        EngineEventBus bus = EngineInternals.eventBus(e);
        for (EventKind k : EventKind.values()) {
            assertThat(bus.on(k)).as(k.name()).isFalse();
        }
        long id = e.insert(Noop.class, new Item(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        e.stop();
        assertThat(bus.dispatching()).as("dispatcher thread started").isFalse();
        assertThat(e.metrics().eventsDropped.sum()).isZero();
    }

    @Test
    void a_listener_of_some_types_turns_on_only_those(EngineHarness h) {
        Engine e = h.build("n1", c -> c, java.time.InstantSource.system(), b -> b, new Noop());
        EngineEventListener l = event -> { };
        e.addListener(l, List.of(GateThrottled.class, GcSwept.class));
        EngineEventBus bus = EngineInternals.eventBus(e);
        assertThat(java.util.Arrays.stream(EventKind.values()).filter(bus::on))
                .containsExactlyInAnyOrder(EventKind.GATE_THROTTLED, EventKind.GC_SWEPT);
        e.removeListener(l);
        assertThat(java.util.Arrays.stream(EventKind.values()).filter(bus::on)).isEmpty();
        assertThatThrownBy(() -> e.addListener(l, notAnEventType()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an engine event type");
    }

    /** @return a list holding a type that is not an engine event type (an unchecked cast gets it past the compiler) */
    @SuppressWarnings({"rawtypes", "unchecked"})
    private static java.util.Collection<Class<? extends EngineEvent>> notAnEventType() {
        return (java.util.Collection) List.of(EngineEvent.class, String.class);
    }

    @Test
    void a_throwing_listener_is_counted_and_neither_stops_the_engine_nor_the_other_listeners(EngineHarness h) {
        Recorder r = new Recorder();
        Engine e = h.build("n1", c -> c, java.time.InstantSource.system(),
                b -> b.listener(event -> {
                    throw new IllegalStateException("observer bug");
                }).listener(r), new Noop());
        e.start();
        List<NewInstance> rows = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            rows.add(new NewInstance(FsmNames.nameOf(Noop.class), new Item(i), null));
        }
        e.insertAll(rows);
        h.awaitDone(50);
        await().atMost(Duration.ofSeconds(5)).until(() -> r.of(StepCompleted.class).size() == 50);
        assertThat(e.metrics().eventsFailed.sum()).isGreaterThanOrEqualTo(50);
        assertThat(e.metrics().loopErrors.sum()).isZero();
    }

    @Test
    void a_blocked_listener_drops_and_counts_events_while_the_engine_keeps_claiming_and_finishing_rows(EngineHarness h) {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        long began = System.nanoTime();
        Engine e = pastTheQueue(h, blocked, never, true);  // within a minute: the engine does not wait for its listener
        assertThat(blocked.getCount()).as("the listener was called, and blocks").isZero();
        assertThat(e.metrics().eventsDropped.sum()).as("events dropped").isGreaterThan(0);
        assertThat(EngineInternals.eventBus(e).pending()).isEqualTo(EngineEventBus.CAPACITY);

        long stopping = System.nanoTime();
        e.stop();
        assertThat(Duration.ofNanos(System.nanoTime() - stopping)).as("stop with a blocked listener")
                .isLessThan(Duration.ofSeconds(15));
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(90));
        never.countDown();
    }

    /**
     * A listener still busy at the stop that swallows the dispatcher's interrupt (as a CDI container
     * does, wrapping an observer's {@code InterruptedException}): the dispatcher thread still ends,
     * though the queue it would wait on is empty and no stop mark could be queued (it was full).
     */
    @Test
    void the_dispatcher_ends_at_the_stop_even_when_a_busy_listener_swallows_its_interrupt(EngineHarness h) throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        Engine e = pastTheQueue(h, blocked, never, false);
        assertThat(blocked.getCount()).as("the listener was called, and blocks").isZero();
        assertThat(EngineInternals.eventBus(e).pending()).as("the queue is full").isEqualTo(EngineEventBus.CAPACITY);
        Thread dispatcher = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("gendurable-events") && t.isAlive()).findFirst().orElseThrow();

        e.stop();
        dispatcher.join(10_000);
        assertThat(dispatcher.isAlive()).as("the dispatcher thread after the stop").isFalse();
        never.countDown();
    }

    /**
     * An engine whose one listener blocks on {@code never} from its first event (counting
     * {@code blocked} down), after more rows than the event queue holds are done.
     *
     * @param restoresInterrupt whether the listener restores the interrupt that ends its wait
     */
    private static Engine pastTheQueue(EngineHarness h, CountDownLatch blocked, CountDownLatch never,
                                       boolean restoresInterrupt) {
        Engine e = h.build("n1", c -> c.queues(Map.of("default", 16)), java.time.InstantSource.system(),
                b -> b.listener(event -> {
                    blocked.countDown();
                    try {
                        never.await();
                    } catch (InterruptedException stop) {
                        if (restoresInterrupt) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }), new Noop());
        e.start();
        int n = EngineEventBus.CAPACITY + 1000;  // more step events alone than the queue holds
        List<NewInstance> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(new NewInstance(FsmNames.nameOf(Noop.class), new Item(i), null));
        }
        e.insertAll(rows);
        h.awaitDone(n);
        return e;
    }
}
