package io.gendurable.impl.signals;

import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Outcome;
import io.gendurable.Signal;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.Kit;
import io.gendurable.impl.support.Probe;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.GenDurableTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The signal rules, one test each: delivery and its three answers, dedup, waking a parked
 * instance, what a woken step sees, the consumption rules (progress, retry, await, terminal),
 * await timeouts, the accumulate-a-pack pattern, and bad input. Each runs on the test kit, in the
 * test's thread: a signal "delivered while the step runs" is sent by the step itself, and time moves
 * only when the test moves the clock. {@link SignalLoopsTest} keeps what only threads show.
 */
@GenDurableTest
class SignalsTest {
    public record Doc(String v) {
    }

    public record Approval(String by, int level) {
    }

    /** The items an accumulating instance collected. */
    public record Pack(List<Integer> items) {
    }

    /** What one step run saw. */
    public record Seen(long id, String step, int attempt, List<Signal> awaited, List<Signal> inbox) {
    }

    /** The behaviour of a test's FSM, step by step. */
    @FunctionalInterface
    public interface Script {
        Outcome step(String step, Doc state, StepContext ctx) throws Exception;
    }

    /** An FSM that records what each step run saw and then follows its script. */
    public static class Scripted implements Fsm<Doc> {
        final Script script;
        public final List<Seen> seen = new CopyOnWriteArrayList<>();

        public Scripted(Script script) {
            this.script = script;
        }

        @Override
        public Outcome step(String step, Doc state, StepContext ctx) throws Exception {
            seen.add(new Seen(ctx.id(), step, ctx.attempt(), List.copyOf(ctx.awaited()), List.copyOf(ctx.inbox())));
            return script.step(step, state, ctx);
        }

        public List<Seen> runsOf(String step) {
            return seen.stream().filter(s -> s.step().equals(step)).toList();
        }
    }

    /** A payload JSON-B cannot write: its only property's getter throws. */
    public static class Exploding {
        public String getBoom() {
            throw new IllegalStateException("boom");
        }
    }

    /** Parks on "go" at once; a wake moves it to "finish", which is done. */
    public static Scripted parker() {
        return new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> Outcome.await(Set.of("go"), "finish", s);
            default -> Outcome.done(s);
        });
    }

    DurableTesting t;
    Engine e;
    Probe db;

    @BeforeEach
    void up(DurableTesting t) {
        this.t = t;
        this.e = Kit.engine(t);
        this.db = Kit.probe(t);
        e.metrics().signalsNoTarget.reset();   // the kit's warm-up signalled instance 0: the tests count from zero
    }

    /** Registers the FSM, inserts one instance and drains: it ends parked on "go". */
    private long parked(Scripted fsm, Doc state, InsertOptions options) {
        t.register(fsm);
        long id = e.insert(Scripted.class, state, options).id();
        t.drain();
        t.assertAwaiting(id);
        return id;
    }

    private long parked(Scripted fsm) {
        return parked(fsm, new Doc("x"), InsertOptions.defaults());
    }

    private long signals(String where) {
        return db.count("SELECT count(*) FROM signals" + where);
    }

    // ---- delivery -------------------------------------------------------------------------------

    @Test
    void a_signal_to_a_live_instance_by_id_is_delivered_stored_and_wakes_it() {
        Scripted fsm = parker();
        long id = parked(fsm);

        assertThat(e.signal(SignalTarget.id(id), "go", new Approval("alice", 1))).isEqualTo(SignalResult.DELIVERED);
        t.assertStatus(id, Status.RUNNABLE);

        t.drain();
        t.assertDone(id);
        assertThat(fsm.runsOf("finish")).singleElement().satisfies(s -> {
            assertThat(s.awaited()).extracting(Signal::name).containsExactly("go");
            assertThat(s.awaited().get(0).payload().as(Approval.class)).isEqualTo(new Approval("alice", 1));
        });
        assertThat(e.metrics().signalsDelivered.sum()).isEqualTo(1);
    }

    @Test
    void a_signal_by_correlation_key_reaches_the_live_holder_of_the_key() {
        Scripted fsm = parker();
        long id = parked(fsm, new Doc("x"), InsertOptions.builder().correlationKey("order-7").build());

        assertThat(e.signal(SignalTarget.correlationKey("order-7"), "go", new Approval("bob", 2), "pay-1"))
                .isEqualTo(SignalResult.DELIVERED);

        t.drain();
        t.assertDone(id);
        assertThat(fsm.runsOf("finish")).singleElement().satisfies(s -> {
            assertThat(s.id()).isEqualTo(id);
            assertThat(s.awaited()).singleElement().satisfies(sig -> {
                assertThat(sig.name()).isEqualTo("go");
                assertThat(sig.dedupKey()).isEqualTo("pay-1");
                assertThat(sig.payload().as(Approval.class)).isEqualTo(new Approval("bob", 2));
            });
        });
    }

    @Test
    void the_same_dedup_key_twice_is_a_duplicate_and_leaves_exactly_one_inbox_row() {
        long id = parked(parker(), new Doc("a"), InsertOptions.builder().correlationKey("k-a").build());
        long other = e.insert(Scripted.class, new Doc("b")).id();
        t.drain();
        t.assertAwaiting(other);

        // "note" is not awaited: the rows stay in the inbox, nothing consumes them.
        assertThat(e.signal(SignalTarget.id(id), "note", new Doc("first"), "k1")).isEqualTo(SignalResult.DELIVERED);
        assertThat(e.signal(SignalTarget.id(id), "note", new Doc("second"), "k1")).isEqualTo(SignalResult.DUPLICATE);
        // The same target addressed by its key: still the same dedup scope.
        assertThat(e.signal(SignalTarget.correlationKey("k-a"), "note", new Doc("third"), "k1"))
                .isEqualTo(SignalResult.DUPLICATE);

        assertThat(signals("")).isEqualTo(1);
        assertThat(signals(" WHERE target_id = " + id + " AND dedup_key = 'k1' AND payload->>'v' = 'first'")).isEqualTo(1);
        assertThat(e.metrics().signalsDuplicate.sum()).isEqualTo(2);

        // Dedup is per target, and signals without a key never collide.
        assertThat(e.signal(SignalTarget.id(other), "note", new Doc("elsewhere"), "k1")).isEqualTo(SignalResult.DELIVERED);
        assertThat(e.signal(SignalTarget.id(id), "note", null)).isEqualTo(SignalResult.DELIVERED);
        assertThat(e.signal(SignalTarget.id(id), "note", null)).isEqualTo(SignalResult.DELIVERED);
        assertThat(signals("")).isEqualTo(4);
        assertThat(t.drain().steps()).isEmpty();
        t.assertAwaiting(id, "go");
    }

    @Test
    void a_terminal_or_unknown_target_is_no_target_by_id_and_by_key_and_nothing_is_written() {
        t.register(new Scripted((step, s, ctx) -> s.v().equals("fail") ? Outcome.stop("no") : Outcome.done(s)));
        long done = e.insert(Scripted.class, new Doc("ok"), InsertOptions.builder().correlationKey("k-done").build()).id();
        long failed = e.insert(Scripted.class, new Doc("fail"), InsertOptions.builder().correlationKey("k-failed").build()).id();
        t.drain();
        t.assertDone(done);
        t.assertFailed(failed);

        assertThat(e.signal(SignalTarget.id(done), "go", new Doc("p"))).isEqualTo(SignalResult.NO_TARGET);
        assertThat(e.signal(SignalTarget.correlationKey("k-done"), "go", new Doc("p"))).isEqualTo(SignalResult.NO_TARGET);
        assertThat(e.signal(SignalTarget.id(failed), "go", new Doc("p"), "d1")).isEqualTo(SignalResult.NO_TARGET);
        assertThat(e.signal(SignalTarget.correlationKey("k-failed"), "go", new Doc("p"))).isEqualTo(SignalResult.NO_TARGET);
        assertThat(e.signal(SignalTarget.id(done + 1_000_000), "go", new Doc("p"))).isEqualTo(SignalResult.NO_TARGET);
        assertThat(e.signal(SignalTarget.correlationKey("nobody-has-this"), "go", new Doc("p"), "d2"))
                .isEqualTo(SignalResult.NO_TARGET);

        assertThat(signals("")).isZero();
        assertThat(e.metrics().signalsNoTarget.sum()).isEqualTo(6);
        assertThat(e.metrics().signalsDelivered.sum()).isZero();
        t.assertDone(done);
        t.assertFailed(failed);
    }

    // ---- waking and what the woken step sees ----------------------------------------------------

    @Test
    void a_parked_instance_is_woken_by_a_matching_signal_and_sees_exactly_the_matching_signals_and_the_whole_inbox() {
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> Outcome.await(Set.of("go"), "next", s);
            default -> Outcome.done(s);
        });
        long id = parked(fsm);
        t.assertAwaiting(id, "go");

        assertThat(e.signal(SignalTarget.id(id), "note", new Doc("just saying"))).isEqualTo(SignalResult.DELIVERED);
        t.assertAwaiting(id, "go");
        assertThat(e.signal(SignalTarget.id(id), "go", new Approval("carol", 3), "go-1")).isEqualTo(SignalResult.DELIVERED);

        t.drain();
        t.assertDone(id);
        assertThat(fsm.runsOf("next")).singleElement().satisfies(s -> {
            assertThat(s.awaited()).extracting(Signal::name).containsExactly("go");
            Signal go = s.awaited().get(0);
            assertThat(go.payload().as(Approval.class)).isEqualTo(new Approval("carol", 3));
            assertThat(go.dedupKey()).isEqualTo("go-1");
            assertThat(go.insertedAt()).isNotNull();
            assertThat(s.inbox()).extracting(Signal::name).containsExactly("note", "go");
            assertThat(s.inbox().get(0).payload().as(Doc.class)).isEqualTo(new Doc("just saying"));
            assertThat(s.inbox().get(1)).isEqualTo(go);
        });
    }

    @Test
    void a_signal_delivered_while_the_step_runs_wakes_the_park_that_follows_at_once() {
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> {
                assertThat(e.signal(SignalTarget.id(ctx.id()), "go", new Doc("early"))).isEqualTo(SignalResult.DELIVERED);
                assertThat(e.find(ctx.id()).orElseThrow().status()).isEqualTo(Status.EXECUTING);
                yield Outcome.await(Set.of("go"), "next", s);
            }
            default -> Outcome.done(s);
        });
        t.register(fsm);
        long id = e.insert(Scripted.class, new Doc("x")).id();

        // One drain: had the park not rechecked the inbox, the instance would end it parked.
        t.drain();
        t.assertDone(id);
        assertThat(fsm.runsOf("next")).singleElement().satisfies(s -> assertThat(s.awaited())
                .extracting(sig -> sig.payload().as(Doc.class)).containsExactly(new Doc("early")));
    }

    @Test
    void a_signal_with_a_name_the_instance_does_not_await_is_stored_but_does_not_wake_it() {
        Scripted fsm = parker();
        long id = parked(fsm);

        assertThat(e.signal(SignalTarget.id(id), "other", new Doc("p"))).isEqualTo(SignalResult.DELIVERED);

        // The wake is part of the delivery statement: had it flipped the row, it would not be parked now.
        t.assertAwaiting(id, "go");
        assertThat(signals(" WHERE target_id = " + id + " AND name = 'other'")).isEqualTo(1);
        assertThat(t.drain().steps()).isEmpty();
        t.assertAwaiting(id, "go");
        assertThat(fsm.seen).hasSize(1);
        assertThat(fsm.runsOf("finish")).isEmpty();
    }

    // ---- consumption rules ----------------------------------------------------------------------

    @Test
    void progress_consumes_exactly_the_awaited_signals_it_saw_and_a_latecomer_delivered_during_the_step_survives() {
        AtomicLong lateId = new AtomicLong();
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> Outcome.await(Set.of("go"), "work", s);
            case "work" -> {
                assertThat(e.signal(SignalTarget.id(ctx.id()), "go", new Doc("late"))).isEqualTo(SignalResult.DELIVERED);
                assertThat(e.find(ctx.id()).orElseThrow().status()).isEqualTo(Status.EXECUTING);
                lateId.set(db.count("SELECT id FROM signals WHERE target_id = " + ctx.id() + " AND payload->>'v' = 'late'"));
                yield Outcome.next("again", s);
            }
            case "again" -> Outcome.await(Set.of("go"), "final", s);
            default -> Outcome.done(s);
        });
        long id = parked(fsm);

        assertThat(e.signal(SignalTarget.id(id), "go", new Doc("first"))).isEqualTo(SignalResult.DELIVERED);

        // "again" re-awaits "go". The latecomer sat in its inbox but was never presented as awaited,
        // so the park's recheck wakes it at once, and "final" sees exactly the latecomer.
        t.drain();
        t.assertDone(id);
        Seen work = fsm.runsOf("work").get(0);
        assertThat(work.awaited()).extracting(sig -> sig.payload().as(Doc.class)).containsExactly(new Doc("first"));
        Seen again = fsm.runsOf("again").get(0);
        assertThat(again.awaited()).isEmpty();
        // "work" consumed only what it saw: the latecomer survived into "again"'s inbox.
        assertThat(again.inbox()).extracting(Signal::id).containsExactly(lateId.get());
        assertThat(fsm.runsOf("final")).singleElement().satisfies(s -> assertThat(s.awaited())
                .extracting(Signal::id).containsExactly(lateId.get()));
    }

    @Test
    void done_clears_the_whole_inbox_including_unawaited_signals_and_a_latecomer() {
        terminalOutcomeClearsTheInbox("done", Status.DONE);
    }

    @Test
    void stop_clears_the_whole_inbox_including_unawaited_signals_and_a_latecomer() {
        terminalOutcomeClearsTheInbox("stop", Status.FAILED);
    }

    private void terminalOutcomeClearsTheInbox(String how, Status terminal) {
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> Outcome.await(Set.of("go"), "finish", s);
            default -> {
                e.signal(SignalTarget.id(ctx.id()), "go", new Doc("late"));
                assertThat(signals(" WHERE target_id = " + ctx.id())).isEqualTo(4);
                yield s.v().equals("stop") ? Outcome.stop("stopped on purpose") : Outcome.done(s);
            }
        });
        long id = parked(fsm, new Doc(how), InsertOptions.defaults());
        long bystander = e.insert(Scripted.class, new Doc(how)).id();
        t.drain();
        t.assertAwaiting(bystander);
        e.signal(SignalTarget.id(id), "note", new Doc("n1"));
        e.signal(SignalTarget.id(id), "note", new Doc("n2"), "dk");
        e.signal(SignalTarget.id(bystander), "note", new Doc("theirs"));
        e.signal(SignalTarget.id(id), "go", new Doc("go"));

        t.drain();
        t.assertStatus(id, terminal);
        assertThat(signals(" WHERE target_id = " + id)).isZero();
        assertThat(signals(" WHERE target_id = " + bystander)).isEqualTo(1);
        assertThat(fsm.runsOf("finish")).singleElement()
                .satisfies(s -> assertThat(s.inbox()).extracting(Signal::name).containsExactly("note", "note", "go"));
    }

    @Test
    void retry_keeps_the_inbox_and_the_awaits_so_the_retried_step_sees_the_same_awaited_signals() {
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> Outcome.await(Set.of("go", "also"), "handle", s);
            case "handle" -> ctx.attempt() == 1 ? Outcome.retry(Duration.ofMillis(20)) : Outcome.done(s);
            default -> throw new IllegalStateException(step);
        });
        long id = parked(fsm);
        e.signal(SignalTarget.id(id), "note", new Doc("n"));
        e.signal(SignalTarget.id(id), "go", new Doc("g"));

        t.drain();
        t.assertDone(id);
        List<Seen> runs = fsm.runsOf("handle");
        assertThat(runs).extracting(Seen::attempt).containsExactly(1, 2);
        assertThat(runs.get(0).awaited()).extracting(Signal::name).containsExactly("go");
        assertThat(runs.get(1).awaited()).isEqualTo(runs.get(0).awaited());
        assertThat(runs.get(1).inbox()).isEqualTo(runs.get(0).inbox());
        assertThat(runs.get(1).inbox()).extracting(Signal::name).containsExactly("note", "go");
    }

    @Test
    void await_resets_the_attempt_to_one() {
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> ctx.attempt() < 3 ? Outcome.retry(Duration.ZERO) : Outcome.await(Set.of("go"), "after", s);
            default -> Outcome.done(s);
        });
        long id = parked(fsm);
        assertThat(fsm.runsOf("start")).extracting(Seen::attempt).containsExactly(1, 2, 3);
        assertThat(t.instance(id).attempt()).isEqualTo(1);

        e.signal(SignalTarget.id(id), "go", null);
        t.drain();
        t.assertDone(id);
        assertThat(fsm.runsOf("after")).singleElement().satisfies(s -> {
            assertThat(s.attempt()).isEqualTo(1);
            assertThat(s.awaited()).singleElement().satisfies(sig -> assertThat(sig.payload().isNull()).isTrue());
        });
    }

    // ---- timeouts -------------------------------------------------------------------------------

    @Test
    void an_await_timeout_wakes_the_instance_to_its_next_step_with_an_empty_awaited() {
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> Outcome.await(Set.of("go"), "late", s, Duration.ofMillis(200));
            default -> Outcome.done(s);
        });
        long id = parked(fsm);
        assertThat(t.instance(id).awaitDeadline()).isEqualTo(t.now().plusMillis(200));
        e.signal(SignalTarget.id(id), "note", new Doc("not awaited"));

        t.clock().advance(Duration.ofMillis(199));
        assertThat(t.fireDueTimeouts()).as("before the deadline").isZero();
        t.clock().advance(Duration.ofMillis(1));
        assertThat(t.fireDueTimeouts()).isEqualTo(1);

        t.drain();
        t.assertDone(id);
        assertThat(e.metrics().awaitTimeouts.sum()).isEqualTo(1);
        assertThat(fsm.runsOf("late")).singleElement().satisfies(s -> {
            assertThat(s.awaited()).isEmpty();
            assertThat(s.inbox()).extracting(Signal::name).containsExactly("note");
            assertThat(s.attempt()).isEqualTo(1);
        });
        assertThat(t.instance(id).lastError()).isNull();
        assertThat(t.fireDueTimeouts()).isZero();
    }

    @Test
    void a_matching_signal_landing_after_the_timeout_fired_leaves_awaited_empty_and_survives_as_a_latecomer() {
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> Outcome.await(Set.of("go"), "late", s, Duration.ofMillis(200));
            case "late" -> Outcome.next("end", s);
            default -> Outcome.done(s);
        });
        long id = parked(fsm);

        assertThat(t.fireTimeouts()).isEqualTo(1);
        var woken = t.assertStatus(id, Status.RUNNABLE);
        assertThat(woken.awaits()).isEmpty();
        assertThat(woken.awaitDeadline()).isNull();
        // The row is runnable, not parked: the delivery stores the signal and wakes nothing.
        assertThat(e.signal(SignalTarget.id(id), "go", new Doc("too late"))).isEqualTo(SignalResult.DELIVERED);

        t.drain();
        t.assertDone(id);
        assertThat(fsm.runsOf("late")).singleElement().satisfies(s -> {
            assertThat(s.awaited()).as("a timeout wake").isEmpty();
            assertThat(s.inbox()).extracting(Signal::name).containsExactly("go");
        });
        assertThat(fsm.runsOf("end")).singleElement()
                .satisfies(s -> assertThat(s.inbox()).extracting(Signal::name).containsExactly("go"));
    }

    @Test
    void a_signal_before_the_deadline_wins_and_the_timeout_never_fires() {
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> Outcome.await(Set.of("go"), "after", s, Duration.ofMillis(300));
            case "after" -> Outcome.await(Set.of("never"), "end", s);  // park again, without a deadline
            default -> Outcome.done(s);
        });
        long id = parked(fsm);
        e.signal(SignalTarget.id(id), "go", new Doc("g"));
        t.drain();
        assertThat(fsm.runsOf("after")).hasSize(1);
        t.assertAwaiting(id, "never");
        assertThat(t.instance(id).awaitDeadline()).isNull();
        // Past the first deadline, the sweep finds nothing to fire.
        t.clock().advance(Duration.ofMillis(400));
        assertThat(t.fireDueTimeouts()).isZero();
        assertThat(e.metrics().awaitTimeouts.sum()).isZero();
        assertThat(fsm.runsOf("after")).singleElement()
                .satisfies(s -> assertThat(s.awaited()).extracting(Signal::name).containsExactly("go"));
    }

    // ---- accumulate-a-pack ----------------------------------------------------------------------

    @Test
    void a_step_that_re_awaits_until_it_has_a_pack_of_three_parks_cleanly_between_signals_then_proceeds_with_all() {
        AtomicInteger awaitingRuns = new AtomicInteger();
        Scripted fsm = new Scripted((step, s, ctx) -> switch (step) {
            case "start" -> {
                awaitingRuns.incrementAndGet();
                yield Outcome.await(Set.of("item"), "collect", s);
            }
            case "collect" -> {
                awaitingRuns.incrementAndGet();
                if (ctx.awaited().size() < 3) {
                    yield Outcome.await(Set.of("item"), "collect", s);  // keep the pack: consume nothing
                }
                List<Integer> items = new ArrayList<>();
                ctx.awaited().forEach(sig -> items.add(sig.payload().as(Integer.class)));
                yield Outcome.next("process", new Doc(items.toString()));
            }
            default -> Outcome.done(s);
        });
        long id = parked(fsm, new Doc("pack"), InsertOptions.defaults());

        for (int i = 1; i <= 2; i++) {
            assertThat(e.signal(SignalTarget.id(id), "item", i)).isEqualTo(SignalResult.DELIVERED);
            // One run of "collect", then parked, and it stays parked: the pack it was shown does not wake it again.
            assertThat(t.drain().stepNamesOf(id)).containsExactly("collect");
            t.assertAwaiting(id, "item");
            assertThat(fsm.runsOf("collect")).hasSize(i);
            assertThat(signals(" WHERE target_id = " + id)).isEqualTo(i);
        }
        e.signal(SignalTarget.id(id), "item", 3);

        t.drain();
        t.assertDone(id, new Doc("[1, 2, 3]"));
        assertThat(awaitingRuns.get()).as("runs of the awaiting steps for 3 signals").isLessThanOrEqualTo(3 + 1);
        assertThat(fsm.runsOf("collect")).extracting(s -> s.awaited().size()).containsExactly(1, 2, 3);
        assertThat(fsm.runsOf("process")).singleElement().satisfies(s -> assertThat(s.awaited()).isEmpty());
        assertThat(signals("")).isZero();
    }

    // ---- bad input ------------------------------------------------------------------------------

    @Test
    void bad_signal_input_throws_at_the_call_and_writes_nothing() {
        long id = parked(parker(), new Doc("x"), InsertOptions.builder().correlationKey("k").build());
        SignalTarget to = SignalTarget.id(id);

        assertThatThrownBy(() -> e.signal(to, null, new Doc("p"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> e.signal(to, "", new Doc("p"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> e.signal(to, "  ", new Doc("p"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> e.signal(to, "g".repeat(256), new Doc("p"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> e.signal(to, "go", new Exploding())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("go").hasMessageContaining("serialize");
        assertThatThrownBy(() -> e.signal(to, "go", "p".repeat(ConfigKeys.MAX_VALUE_BYTES.defaultValue())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit");
        assertThatThrownBy(() -> e.signal(to, "go", new Doc("p"), "d".repeat(256))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dedupKey");
        assertThatThrownBy(() -> e.signal(to, "go", new Doc("p"), "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dedupKey");
        assertThatThrownBy(() -> e.signal(to, "go", new Doc("p"), "   ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dedupKey");
        assertThatThrownBy(() -> e.signal(null, "go", new Doc("p"))).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("target");
        assertThatThrownBy(() -> e.signal(null, "go", new Doc("p"), "d")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> SignalTarget.correlationKey(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SignalTarget.correlationKey(null)).isInstanceOf(IllegalArgumentException.class);

        assertThat(signals("")).isZero();
        t.assertAwaiting(id, "go");
        assertThat(e.metrics().signalsDelivered.sum() + e.metrics().signalsDuplicate.sum()
                + e.metrics().signalsNoTarget.sum()).isZero();
    }

    @Test
    void an_await_outcome_with_no_signals_a_blank_name_or_a_timeout_of_zero_or_less_throws_at_construction() {
        Doc s = new Doc("x");
        assertThatThrownBy(() -> Outcome.await(Set.of(), "next", s)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Outcome.await(Set.of(), "next", s, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Outcome.await(Set.of(""), "next", s)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Outcome.await(Set.of("go", " "), "next", s)).isInstanceOf(IllegalArgumentException.class);
        Set<String> withNull = new HashSet<>();
        withNull.add(null);
        assertThatThrownBy(() -> Outcome.await(withNull, "next", s)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Outcome.await(null, "next", s)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Outcome.await(Set.of("go"), " ", s)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Outcome.await(Set.of("go"), "next", s, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> Outcome.await(Set.of("go"), "next", s, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> Outcome.await(Set.of("go"), "next", s, null)).isInstanceOf(NullPointerException.class);
        assertThat(Outcome.await(Set.of("go"), "next", s, Duration.ofMillis(1)).timeout()).isEqualTo(Duration.ofMillis(1));
    }
}
