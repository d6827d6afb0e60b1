package io.gendurable.impl.insert;

import io.gendurable.Debounce;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.testing.DrainOptions;
import io.gendurable.testing.DrainResult;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code InsertOptions.debounce}: inserts of one key while its instance waits for its first start
 * move that instance (and give it their state) instead of inserting; at most one runs per window;
 * once claimed, the next insert starts a new window. Under the kit, on its test clock.
 */
class DebounceTest {
    private static final Duration WINDOW = Duration.ofSeconds(10);

    /** Done at once with its state. */
    @DurableFsm(name = "debounced")
    public static class Reindex implements Fsm<String> {
        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            return Outcome.done(s);
        }
    }

    /** Another FSM, to show that a key is per FSM. */
    @DurableFsm(name = "debounced-other")
    public static class Other implements Fsm<String> {
        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            return Outcome.done(s);
        }
    }

    private DurableTesting t;
    private TestClock clock;

    @BeforeEach
    void kit() {
        clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
        t = DurableTesting.builder().schemaHint("debounce").clock(clock).fsm(new Reindex(), new Other()).build();
    }

    @AfterEach
    void close() {
        t.close();
    }

    private static InsertOptions debounce(String key) {
        return InsertOptions.builder().debounce(key, WINDOW).build();
    }

    private static final DrainOptions DUE_ONLY = DrainOptions.defaults().collapseDelays(false);

    @Test
    void inserts_within_the_window_run_once_with_the_last_state_a_window_after_the_last() {
        Instant start = clock.instant();
        Inserted first = t.durable().insert(Reindex.class, "v1", debounce("doc-7"));
        clock.advance(Duration.ofSeconds(6));
        Inserted second = t.durable().insert(Reindex.class, "v2", debounce("doc-7"));
        clock.advance(Duration.ofSeconds(6));   // 12 s after the first: its own window has passed
        assertThat(t.drain(DUE_ONLY).steps()).as("nothing runs before a window after the latest insert").isEmpty();
        Inserted third = t.durable().insert(Reindex.class, "v3", debounce("doc-7"));

        assertThat(first).isEqualTo(new Inserted(first.id(), false, false));
        assertThat(second).as("the waiting instance took it").isEqualTo(new Inserted(first.id(), false, true));
        assertThat(third).isEqualTo(new Inserted(first.id(), false, true));
        assertThat(t.instance(first.id()).eligibleAt()).isEqualTo(start.plusSeconds(12).plus(WINDOW));
        assertThat(t.instances(Reindex.class)).hasSize(1);

        clock.advance(WINDOW.minusMillis(1));
        assertThat(t.drain(DUE_ONLY).steps()).isEmpty();
        clock.advance(Duration.ofMillis(1));
        DrainResult r = t.drain(DUE_ONLY);
        assertThat(r.steps()).hasSize(1);
        t.assertDone(first.id(), "v3");
    }

    @Test
    void first_keeps_the_waiting_state_and_only_moves_the_start() {
        InsertOptions keep = InsertOptions.builder().debounce("doc-7", WINDOW, Debounce.State.FIRST).build();
        long id = t.durable().insert(Reindex.class, "first", keep).id();
        clock.advance(Duration.ofSeconds(5));
        assertThat(t.durable().insert(Reindex.class, "second", keep)).isEqualTo(new Inserted(id, false, true));
        assertThat(t.instance(id).eligibleAt()).isEqualTo(clock.instant().plus(WINDOW));
        t.drain();
        t.assertDone(id, "first");
    }

    @Test
    void once_claimed_the_next_insert_starts_a_new_instance_and_window() {
        long first = t.durable().insert(Reindex.class, "a", debounce("k")).id();
        clock.advance(WINDOW);
        assertThat(t.drain(DUE_ONLY).steps()).hasSize(1);
        Inserted next = t.durable().insert(Reindex.class, "b", debounce("k"));
        assertThat(next.debounced()).isFalse();
        assertThat(next.id()).isNotEqualTo(first);
        assertThat(t.instance(next.id()).eligibleAt()).isEqualTo(clock.instant().plus(WINDOW));
        t.drain();
        t.assertDone(first, "a");
        t.assertDone(next.id(), "b");
    }

    /** Retries its first attempt a minute later, then is done with its state. */
    @DurableFsm(name = "debounced-retried")
    public static class RetriedOnce implements Fsm<String> {
        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            return ctx.attempt() == 1 ? Outcome.retry(Duration.ofMinutes(1), s) : Outcome.done(s);
        }
    }

    @Test
    void an_instance_that_ran_a_step_and_waits_again_is_not_debounced_into_and_waits_beside_the_next() {
        t.register(new RetriedOnce());
        long first = t.durable().insert(RetriedOnce.class, "a", debounce("k")).id();
        clock.advance(WINDOW);
        assertThat(t.drain(DUE_ONLY).steps()).as("its first attempt ran and retries in a minute").hasSize(1);
        assertThat(t.instance(first).status()).isEqualTo(Status.RUNNABLE);

        Inserted next = t.durable().insert(RetriedOnce.class, "b", debounce("k"));
        assertThat(next.debounced()).as("a started instance is no longer waiting").isFalse();
        assertThat(t.instance(first).eligibleAt()).as("its retry keeps its time").isEqualTo(clock.instant().plus(Duration.ofMinutes(1)));
        assertThat(t.durable().insert(RetriedOnce.class, "c", debounce("k"))).isEqualTo(new Inserted(next.id(), false, true));
        t.drain();
        t.assertDone(first, "a");
        t.assertDone(next.id(), "c");
    }

    @Test
    void a_key_is_per_fsm_and_plain_inserts_are_untouched() {
        long a = t.durable().insert(Reindex.class, "a", debounce("k")).id();
        long other = t.durable().insert(Other.class, "o", debounce("k")).id();
        long plain = t.durable().insert(Reindex.class, "p").id();
        assertThat(List.of(a, other, plain)).doesNotHaveDuplicates();
        assertThat(t.drain(DUE_ONLY).steps()).as("the plain insert runs at once").hasSize(1);
        t.drain();
        t.assertDone(a, "a");
        t.assertDone(other, "o");
    }

    @Test
    void a_batch_with_one_key_twice_applies_them_in_order() {
        List<Inserted> out = t.durable().insertAll(List.of(
                NewInstance.of(Reindex.class, "one", debounce("k")),
                NewInstance.of(Reindex.class, "plain"),
                NewInstance.of(Reindex.class, "two", debounce("k")),
                NewInstance.of(Reindex.class, "other-key", debounce("j"))));
        assertThat(out.get(0).debounced()).isFalse();
        assertThat(out.get(2)).isEqualTo(new Inserted(out.get(0).id(), false, true));
        assertThat(out.get(3).debounced()).isFalse();
        assertThat(out.stream().map(Inserted::id).distinct()).hasSize(3);
        t.drain();
        t.assertDone(out.get(0).id(), "two");
        t.assertDone(out.get(3).id(), "other-key");
    }

    @Test
    void an_operator_action_on_the_waiting_instance_ends_its_debouncing() {
        long id = t.durable().insert(Reindex.class, "a", debounce("k")).id();
        clock.advance(Duration.ofSeconds(1));
        t.operations().reschedule(id, clock.instant().plusSeconds(60));
        Inserted again = t.durable().insert(Reindex.class, "b", debounce("k"));
        assertThat(again.debounced()).as("the rescheduled instance keeps the operator's start").isFalse();
        assertThat(t.instance(id).eligibleAt()).isEqualTo(clock.instant().plusSeconds(60));
        t.drain();
        t.assertDone(id, "a");
        t.assertDone(again.id(), "b");
    }

    /**
     * The same at the insert's own instant (a test clock that stands still, or two writes in one
     * clock tick): the write's time equals the insert's, so only what the write itself clears can
     * take the row out of its key's waiting place. Before the fix each kept it there: the next
     * insert moved the operator's start and replaced the state.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"runNow", "reschedule", "changePriority", "cancel-retry"})
    void an_operator_action_at_the_insert_s_own_instant_ends_its_debouncing(String action) {
        long id = t.durable().insert(Reindex.class, "a", debounce("k")).id();
        switch (action) {
            case "runNow" -> t.operations().runNow(id);
            case "reschedule" -> t.operations().reschedule(id, clock.instant().plusSeconds(60));
            case "changePriority" -> t.operations().changePriority(id, 3);
            default -> {
                t.operations().cancel(id, "by hand");
                t.operations().retry(id);
            }
        }
        java.time.Instant start = t.instance(id).eligibleAt();
        Inserted again = t.durable().insert(Reindex.class, "b", debounce("k"));
        assertThat(again.debounced()).as("the operator's write ended the debouncing").isFalse();
        assertThat(t.instance(id).eligibleAt()).as("the operator's start stays").isEqualTo(start);
        t.drain();
        t.assertDone(id, "a");
        t.assertDone(again.id(), "b");
    }

    /**
     * An instance run at once by an operator at its insert's instant, whose first attempt retries:
     * its retry's write carries that same instant. Before the fix the retried instance (started, on
     * its second attempt) was back in its key's waiting place and the next insert replaced its
     * state and moved its retry.
     */
    @Test
    void a_started_instance_is_never_debounced_into_even_at_its_insert_s_instant() {
        t.register(new RetriedOnce());
        long first = t.durable().insert(RetriedOnce.class, "a", debounce("k")).id();
        t.operations().runNow(first);
        assertThat(t.drain(DUE_ONLY).steps()).as("its first attempt ran and retries in a minute").hasSize(1);
        Inserted next = t.durable().insert(RetriedOnce.class, "b", debounce("k"));
        assertThat(next.debounced()).as("a started instance is no longer waiting").isFalse();
        assertThat(t.instance(first).eligibleAt()).as("its retry keeps its time").isEqualTo(clock.instant().plus(Duration.ofMinutes(1)));
        t.drain();
        t.assertDone(first, "a");
        t.assertDone(next.id(), "b");
    }

    /** Done with its state and the names of the signals in its inbox. */
    @DurableFsm(name = "debounced-inbox")
    public static class Inbox implements Fsm<String> {
        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            return Outcome.done(s + ctx.inbox().stream().map(io.gendurable.Signal::name).toList());
        }
    }

    /**
     * A signal to the waiting instance is kept in its inbox and does not end its debouncing (a
     * signal writes nothing else on a runnable row, on this release's nodes as on older ones): the
     * next insert still moves it and gives it its state, and its first step sees the signal. The
     * page said a signal ended the debouncing; nothing did.
     */
    @Test
    void a_signal_to_the_waiting_instance_waits_in_its_inbox_and_the_next_insert_still_moves_it() {
        t.register(new Inbox());
        long id = t.durable().insert(Inbox.class, "a", debounce("k")).id();
        clock.advance(Duration.ofSeconds(1));
        t.durable().signal(io.gendurable.SignalTarget.id(id), "nudge", "x");
        clock.advance(Duration.ofSeconds(1));
        assertThat(t.durable().insert(Inbox.class, "b", debounce("k"))).isEqualTo(new Inserted(id, false, true));
        assertThat(t.instances(Inbox.class)).hasSize(1);
        t.drain();
        t.assertDone(id, "b[nudge]");
    }

    @Test
    void bad_input_names_the_field_and_what_it_accepts() {
        assertThatThrownBy(() -> InsertOptions.builder().debounce(" ", WINDOW))
                .hasMessage("debounce key must not be null or blank");
        assertThatThrownBy(() -> InsertOptions.builder().debounce(null, WINDOW))
                .hasMessage("debounce key must not be null or blank");
        assertThatThrownBy(() -> InsertOptions.builder().debounce("k", Duration.ZERO))
                .hasMessage("debounce window must be from 1 ms to 30 days (PT720H), got PT0S");
        assertThatThrownBy(() -> InsertOptions.builder().debounce("k", Duration.ofDays(31)))
                .hasMessageStartingWith("debounce window must be from 1 ms to 30 days");
        assertThatThrownBy(() -> InsertOptions.builder().debounce("k", null))
                .hasMessage("debounce window must be from 1 ms to 30 days (PT720H), got null");
        assertThatThrownBy(() -> InsertOptions.builder().debounce("k", WINDOW, null))
                .hasMessage("debounce state must be one of [LAST, FIRST], got null");
        assertThatThrownBy(() -> InsertOptions.builder().debounce("k", WINDOW).scheduleIn(Duration.ofMinutes(1)).build())
                .hasMessageStartingWith("debounce and scheduledAt (or scheduleIn) cannot be combined");
        assertThatThrownBy(() -> InsertOptions.builder().debounce("k", WINDOW).correlationKey("order-1").build())
                .hasMessageStartingWith("debounce and correlationKey cannot be combined");
        assertThat(t.instances(Reindex.class)).isEmpty();
    }

    @Test
    void a_step_cannot_schedule_a_debounced_child() {
        @DurableFsm(name = "debounce-parent")
        class Parent implements Fsm<String> {
            @Override
            public Outcome step(String step, String s, StepContext ctx) {
                return step.equals("start")
                        ? Outcome.scheduleChildren(List.of(NewInstance.of(Reindex.class, "c", debounce("k"))), "joined", s)
                        : Outcome.done(s);
            }
        }
        t.register(new Parent());
        long id = t.durable().insert(Parent.class, "p").id();
        DrainResult r = t.drain();
        assertThat(r.steps().get(0).error()).contains("children[0]: a child cannot be debounced");
        assertThat(t.instance(id).status()).isNotEqualTo(Status.DONE);
        assertThat(t.instances(Reindex.class)).isEmpty();
    }
}
