package io.gendurable.testing;

import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.SignalTarget;
import io.gendurable.Status;
import io.gendurable.testing.TestingFsms.Count;
import io.gendurable.testing.TestingFsms.Counter;
import io.gendurable.testing.TestingFsms.Flaky;
import io.gendurable.testing.TestingFsms.InlineCounter;
import io.gendurable.testing.TestingFsms.SideJob;
import io.gendurable.testing.TestingFsms.Spinner;
import io.gendurable.testing.TestingFsms.Waiter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@GenDurableTest(fsms = {Counter.class, InlineCounter.class, Spinner.class, Flaky.class, Waiter.class, SideJob.class},
        config = {"gendurable.queues=default:10,side:2", "gendurable.rate-limits.slow.allowed=1", "gendurable.rate-limits.slow.period=PT10S",
                "gendurable.rate-limits.slow.burst=1"})
class DurableDrainTest {

    @Test
    void drain_runs_every_step_in_order_and_returns_what_ran(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Counter.class, new Count(0, 3)).id();

        DrainResult r = t.drain();

        assertThat(r.stepNamesOf(id)).containsExactly("start", "count", "count", "count");
        assertThat(r.steps()).extracting(RanStep::outcome).containsExactly("next", "next", "next", "done");
        t.assertDone(id, 3);
        assertThat(t.drain().count()).as("a second drain finds nothing").isZero();
    }

    @Test
    void drain_runs_steps_only_in_the_calling_thread_and_the_engine_starts_none(GenDurable durable, DurableTesting t) {
        Set<String> before = Thread.getAllStackTraces().keySet().stream().map(Thread::getName).collect(Collectors.toSet());
        durable.insert(Counter.class, new Count(0, 5));
        durable.insert(SideJob.class, new Count(7, 7));

        assertThat(t.drain().count()).isEqualTo(7);

        Set<String> after = Thread.getAllStackTraces().keySet().stream().map(Thread::getName).collect(Collectors.toSet());
        after.removeAll(before);
        assertThat(after).as("threads started by the drain").isEmpty();
    }

    @Test
    void an_inline_fsm_chains_its_steps_through_the_same_drain(GenDurable durable, DurableTesting t) {
        long id = durable.insert(InlineCounter.class, new Count(0, 4)).id();

        assertThat(t.drain().stepNamesOf(id)).containsExactly("start", "count", "count", "count", "count");
        t.assertDone(id, 4);
    }

    @Test
    void retry_backoffs_collapse_by_moving_the_clock_to_each_retry(GenDurable durable, DurableTesting t) {
        Instant start = t.now();
        long id = durable.insert(Flaky.class, new Count(0, 3)).id();

        DrainResult r = t.drain();

        assertThat(r.stepsOf(id)).extracting(RanStep::outcome).containsExactly("retry", "retry", "retry", "done");
        assertThat(r.stepsOf(id).get(0).error()).contains("flaky attempt 1");
        t.assertDone(id, 4);
        // the default backoff waits between attempts: the clock moved, no wall-clock time was spent
        assertThat(t.now()).isAfter(start.plusSeconds(1));
        assertThat(r.clockAt()).isEqualTo(t.now());
    }

    @Test
    void a_scheduled_start_runs_when_delays_collapse_and_waits_when_they_do_not(GenDurable durable, DurableTesting t) {
        Instant at = t.now().plus(Duration.ofDays(2));
        long id = durable.insert(Counter.class, new Count(0, 0), InsertOptions.builder().scheduleAt(at).build()).id();

        assertThat(t.drain(DrainOptions.defaults().collapseDelays(false)).count()).isZero();
        t.assertStatus(id, Status.RUNNABLE);

        t.drain();
        t.assertDone(id, 0);
        assertThat(t.now()).isEqualTo(at);
    }

    /** The drain throws a {@link DrainException} (an {@link AssertionError}) whose message holds every part. */
    private static void drainFails(org.assertj.core.api.ThrowableAssert.ThrowingCallable drain, String... parts) {
        assertThatThrownBy(drain).isInstanceOf(DrainException.class).isInstanceOf(AssertionError.class)
                .hasMessageContainingAll(parts);
    }

    @Test
    void a_runaway_fsm_fails_the_drain_naming_the_instance_after_max_steps(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Spinner.class, new Count(0, 0)).id();

        drainFails(() -> t.drain(DrainOptions.defaults().maxSteps(50)), "drain ran 50 steps (maxSteps 50)",
                "instance " + id + " of FSM 'spinner' ran 50 steps, the last 'spin' -> next");
    }

    @Test
    void an_inline_chain_stops_at_max_steps_too(GenDurable durable, DurableTesting t) {
        long id = durable.insert(InlineCounter.class, new Count(0, 30)).id();

        drainFails(() -> t.drain(DrainOptions.defaults().maxSteps(10)), "drain ran 10 steps",
                "instance " + id + " of FSM 'inline-counter' ran 10 steps");
        assertThat(t.instance(id).status()).as("the chain's next step was committed runnable").isEqualTo(Status.RUNNABLE);
        t.drain();
        t.assertDone(id, 30);
    }

    @Test
    void drain_of_one_queue_leaves_the_others(GenDurable durable, DurableTesting t) {
        long main = durable.insert(Counter.class, new Count(0, 1)).id();
        long side = durable.insert(SideJob.class, new Count(5, 5)).id();

        DrainResult r = t.drain("side");

        assertThat(r.steps()).extracting(RanStep::id).containsOnly(side);
        t.assertDone(side, 5);
        t.assertStatus(main, Status.RUNNABLE);
    }

    @Test
    void rows_in_a_queue_the_engine_does_not_serve_fail_the_drain(GenDurable durable, DurableTesting t) {
        durable.insert(Counter.class, new Count(0, 0), InsertOptions.builder().queue("nobody").build());

        drainFails(t::drain, "'nobody' (1 rows)", "gendurable.queues");
    }

    @Test
    void a_rate_limited_step_is_admitted_as_the_clock_refills_its_bucket(GenDurable durable, DurableTesting t) {
        Instant start = t.now();
        for (int i = 0; i < 3; i++) {
            durable.insert(Counter.class, new Count(0, 0), InsertOptions.builder().rateLimit("slow").build());
        }

        assertThat(t.drain().count()).isEqualTo(3);
        // burst 1, one token per 10 s: the second and third waited for refills
        assertThat(Duration.between(start, t.now())).isGreaterThanOrEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void a_rate_limit_the_engine_does_not_configure_stalls_the_drain_with_a_clear_error(GenDurable durable,
                                                                                        DurableTesting t) {
        durable.insert(Counter.class, new Count(0, 0), InsertOptions.builder().rateLimit("unknown").build());

        drainFails(t::drain, "queue 'default': 1 due", "a rate limit this engine does not configure");
    }

    @Test
    void rows_of_one_concurrency_key_run_one_after_another(GenDurable durable, DurableTesting t) {
        for (int i = 0; i < 4; i++) {
            durable.insert(Counter.class, new Count(0, 1), InsertOptions.builder().concurrencyKey("account:1").build());
        }

        assertThat(t.drain().count()).isEqualTo(8);
        assertThat(t.instances(Counter.class)).extracting(s -> s.status()).containsOnly(Status.DONE);
    }

    @Test
    void fire_timeouts_moves_the_clock_to_the_deadline_and_wakes_the_park(GenDurable durable, DurableTesting t) {
        Instant start = t.now();
        long id = durable.insert(Waiter.class, new Count(0, 0)).id();
        t.drain();
        t.assertAwaiting(id, "go", "stop");

        assertThat(t.fireDueTimeouts()).as("not due yet").isZero();
        assertThat(t.fireTimeouts()).isEqualTo(1);
        assertThat(t.now()).isEqualTo(start.plus(Duration.ofHours(1)));

        t.drain();
        t.assertDone(id, false);
    }

    @Test
    void fire_due_timeouts_fires_only_what_the_moved_clock_makes_due(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Waiter.class, new Count(0, 0)).id();
        t.drain();

        t.clock().advance(Duration.ofMinutes(59));
        assertThat(t.fireDueTimeouts()).isZero();
        t.clock().advance(Duration.ofMinutes(1));
        assertThat(t.fireDueTimeouts()).isEqualTo(1);
        t.drain();
        t.assertDone(id, false);
    }

    @Test
    void a_signal_wakes_the_park_before_its_timeout(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Waiter.class, new Count(0, 0)).id();
        t.drain();

        durable.signal(SignalTarget.id(id), "go", null);
        t.drain();

        t.assertDone(id, true);
        assertThat(t.fireTimeouts()).isZero();
    }
}
