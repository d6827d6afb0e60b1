package io.gendurable.impl.step;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.FsmNames;
import io.gendurable.Inserted;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Job;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.support.Kit;
import io.gendurable.impl.support.Probe;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.DrainOptions;
import io.gendurable.testing.GenDurableTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Retries, the onError policy, unstorable and null outcomes, and jobs: every failure ends in a row
 * that is not stuck. Each rule runs on the test kit: one thread, the clock moved by the test.
 */
@GenDurableTest
class RetryAndErrorsTest {
    public record Count(int n) {
    }

    /** A step failure as seen by onError. */
    record Failure(int attempt, Throwable error) {
    }

    /** JSON-B cannot write it: its only property's getter throws. */
    public static class Unwritable {
        public String getBoom() {
            throw new IllegalStateException("no JSON for you");
        }
    }

    /** Retries once an hour later with a new state, then completes with the attempt it saw. */
    @DurableFsm(name = "retry-later")
    public static class RetryLater implements Fsm<Count> {
        final List<Integer> attempts = new CopyOnWriteArrayList<>();
        final List<Count> states = new CopyOnWriteArrayList<>();

        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            attempts.add(ctx.attempt());
            states.add(s);
            return ctx.attempt() == 1 ? Outcome.retry(Duration.ofHours(1), new Count(s.n() + 10))
                    : Outcome.done(new Count(ctx.attempt()));
        }
    }

    /** Always throws; the default onError decides. */
    @DurableFsm(name = "flaky-default", maxAttempts = 2)
    public static class FlakyWithDefaultPolicy implements Fsm<Count> {
        final List<Integer> attempts = new CopyOnWriteArrayList<>();

        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            attempts.add(ctx.attempt());
            throw new IllegalStateException("flaky " + ctx.attempt());
        }
    }

    /** Throws on its first attempt, retried fast by onError; then succeeds. */
    @DurableFsm(name = "fails-once")
    public static class FailsOnce implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            if (ctx.attempt() == 1) {
                throw new IllegalStateException("first try fails");
            }
            return step.equals("a") ? Outcome.next("b", s) : Outcome.done(s);
        }

        @Override
        public Outcome onError(String step, Count s, StepContext ctx, Throwable error) {
            return Outcome.retry(Duration.ofMillis(10));
        }
    }

    /** Always throws; onError retries fast while attempts remain, then hands over to the default policy. */
    @DurableFsm(name = "flaky-fast", maxAttempts = 3)
    public static class FlakyWithFastRetries implements Fsm<Count> {
        final List<Failure> failures = new CopyOnWriteArrayList<>();

        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            throw new IllegalStateException("boom " + ctx.attempt());
        }

        @Override
        public Outcome onError(String step, Count s, StepContext ctx, Throwable error) {
            failures.add(new Failure(ctx.attempt(), error));
            return ctx.attempt() < ctx.maxAttempts() ? Outcome.retry(Duration.ofMillis(10))
                    : Fsm.super.onError(step, s, ctx, error);
        }
    }

    /** Throws once; a single attempt allowed. */
    @DurableFsm(name = "one-shot", maxAttempts = 1)
    public static class OneShot implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            throw new IllegalArgumentException("bad input " + s.n());
        }
    }

    /** Records what reaches onError, then gives up with a recognisable text. */
    public abstract static class GivesUp implements Fsm<Count> {
        final List<Failure> failures = new CopyOnWriteArrayList<>();

        @Override
        public Outcome onError(String step, Count s, StepContext ctx, Throwable error) {
            failures.add(new Failure(ctx.attempt(), error));
            return Outcome.stop("gave up: " + error.getMessage());
        }
    }

    /** Moves to a state JSON-B cannot write. */
    @DurableFsm(name = "unstorable")
    public static class UnstorableNext extends GivesUp {
        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            return Outcome.next("second", new Unwritable());
        }
    }

    /** Its onError answers with an unstorable outcome too. */
    @DurableFsm(name = "unstorable-twice")
    public static class UnstorableTwice implements Fsm<Count> {
        final List<Failure> failures = new CopyOnWriteArrayList<>();

        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            return Outcome.done(new Unwritable());
        }

        @Override
        public Outcome onError(String step, Count s, StepContext ctx, Throwable error) {
            failures.add(new Failure(ctx.attempt(), error));
            return Outcome.retry(Duration.ofMillis(10), new Unwritable());
        }
    }

    /** Returns null. */
    @DurableFsm(name = "returns-null")
    public static class ReturnsNull implements Fsm<Count> {
        final List<Failure> failures = new CopyOnWriteArrayList<>();

        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            return null;
        }

        @Override
        public Outcome onError(String step, Count s, StepContext ctx, Throwable error) {
            failures.add(new Failure(ctx.attempt(), error));
            return Outcome.stop("null outcome");
        }
    }

    public record Text(String value) {
    }

    /** Moves to a state that JSON-B writes but PostgreSQL's jsonb refuses (a NUL character). */
    @DurableFsm(name = "nul-state")
    public static class NulState extends GivesUp {
        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            return step.equals("start") ? Outcome.next("second", new Text("a\u0000b")) : Outcome.done();
        }
    }

    /** Stops with an error text PostgreSQL's text type refuses (a NUL character). */
    @DurableFsm(name = "nul-error")
    public static class NulError implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            return Outcome.stop("bad\u0000byte");
        }
    }

    public record Args(int n) {
    }

    public record Receipt(int doubled, String note) {
    }

    /** A job that succeeds. */
    @DurableFsm(name = "doubler")
    public static class Doubler implements Job<Args> {
        @Override
        public Object perform(Args args, StepContext ctx) {
            return new Receipt(args.n() * 2, "attempt " + ctx.attempt());
        }
    }

    /** A job that always fails, with the default retry policy. */
    @DurableFsm(name = "failing-job", maxAttempts = 2)
    public static class FailingJob implements Job<Args> {
        final List<Integer> attempts = new CopyOnWriteArrayList<>();

        @Override
        public Object perform(Args args, StepContext ctx) throws IOException {
            attempts.add(ctx.attempt());
            throw new IOException("disk on fire " + ctx.attempt());
        }
    }

    /** An FSM with nothing but the default onError, to ask it directly. */
    public static class DefaultPolicy implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            return Outcome.done();
        }
    }

    private record FakeContext(int attempt, int maxAttempts) implements StepContext {
        @Override public long id() { return 1; }
        @Override public String fsm() { return "fake"; }
        @Override public int fsmVersion() { return 1; }
        @Override public String step() { return "start"; }
        @Override public String queue() { return "default"; }
        @Override public Instant insertedAt() { return Instant.EPOCH; }
        @Override public Optional<String> correlationKey() { return Optional.empty(); }
        @Override public Optional<String> concurrencyKey() { return Optional.empty(); }
        @Override public java.util.List<io.gendurable.Signal> awaited() { return java.util.List.of(); }
        @Override public java.util.List<io.gendurable.Signal> inbox() { return java.util.List.of(); }
        @Override public java.util.List<io.gendurable.Child> children() { return java.util.List.of(); }
    }

    /** A drain that leaves rows scheduled later alone: what runs is what is due now. */
    private static final DrainOptions DUE_ONLY = DrainOptions.defaults().collapseDelays(false);

    /** Registers {@code fsm}, inserts one instance of it with {@code state}, drains, and checks where it ended. */
    private static InstanceSnapshot runAlone(DurableTesting t, Fsm<?> fsm, Object state, Status expected) {
        t.register(fsm);
        long id = t.durable().insert(new NewInstance(FsmNames.nameOf(fsm.getClass()), state, null)).id();
        t.drain();
        return t.assertStatus(id, expected);
    }

    @Test
    void a_retry_increments_the_attempt_delays_eligible_at_by_its_delay_and_stores_its_state(DurableTesting t) {
        RetryLater fsm = new RetryLater();
        t.register(fsm);
        Instant t0 = t.now();

        Inserted r = t.durable().insert(RetryLater.class, new Count(1));
        t.drain(DUE_ONLY);

        InstanceSnapshot waiting = t.assertStatus(r.id(), Status.RUNNABLE);
        assertThat(waiting.attempt()).isEqualTo(2);
        assertThat(waiting.eligibleAt()).isEqualTo(t0.plus(Duration.ofHours(1)));
        assertThat(waiting.state().as(Count.class)).isEqualTo(new Count(11));
        t.clock().advance(Duration.ofMinutes(59));
        assertThat(t.drain(DUE_ONLY).steps()).as("a pick before the retry is due").isEmpty();
        assertThat(fsm.attempts).containsExactly(1);

        t.clock().advance(Duration.ofMinutes(1));
        t.drain(DUE_ONLY);

        t.assertDone(r.id(), new Count(2));
        assertThat(fsm.attempts).containsExactly(1, 2);
        assertThat(fsm.states).containsExactly(new Count(1), new Count(11));
    }

    @Test
    void the_default_on_error_retries_with_exponential_backoff_and_stops_with_the_error_text_at_max_attempts() {
        Fsm<Count> fsm = new DefaultPolicy();
        IllegalStateException boom = new IllegalStateException("boom");

        Outcome first = fsm.onError("start", new Count(0), new FakeContext(1, 3), boom);
        Outcome second = fsm.onError("start", new Count(0), new FakeContext(2, 3), boom);
        Outcome last = fsm.onError("start", new Count(0), new FakeContext(3, 3), boom);
        Outcome noMessage = fsm.onError("start", new Count(0), new FakeContext(1, 1), new NullPointerException());

        assertThat(first).isInstanceOfSatisfying(Outcome.Retry.class, retry -> {
            assertThat(retry.delay()).isBetween(Duration.ofMillis(1000), Duration.ofMillis(1100));
            assertThat(retry.state()).isNull();
        });
        assertThat(second).isInstanceOfSatisfying(Outcome.Retry.class,
                retry -> assertThat(retry.delay()).isBetween(Duration.ofMillis(2000), Duration.ofMillis(2200)));
        assertThat(last).isEqualTo(Outcome.stop("java.lang.IllegalStateException: boom"));
        assertThat(noMessage).isEqualTo(Outcome.stop("java.lang.NullPointerException"));
    }

    @Test
    void a_throwing_step_under_the_default_policy_is_retried_after_a_backoff_then_fails_at_max_attempts(DurableTesting t) {
        FlakyWithDefaultPolicy fsm = new FlakyWithDefaultPolicy();
        t.register(fsm);
        Probe db = Kit.probe(t);

        Inserted r = t.durable().insert(FlakyWithDefaultPolicy.class, new Count(0));
        t.drain(DUE_ONLY);

        InstanceSnapshot waiting = t.assertStatus(r.id(), Status.RUNNABLE);
        assertThat(waiting.attempt()).isEqualTo(2);
        assertThat(Duration.between(waiting.updatedAt(), waiting.eligibleAt()))
                .isBetween(Duration.ofMillis(1000), Duration.ofMillis(1100));
        assertThat(fsm.attempts).containsExactly(1);

        t.clock().advance(Duration.ofSeconds(2));
        t.drain(DUE_ONLY);

        InstanceSnapshot failed = t.assertStatus(r.id(), Status.FAILED);
        assertThat(fsm.attempts).containsExactly(1, 2);
        assertThat(failed.attempt()).isEqualTo(2);
        assertThat(failed.lastError()).isEqualTo("java.lang.IllegalStateException: flaky 2");
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE status = 'executing'")).isZero();
    }

    @Test
    void a_custom_on_error_retries_fast_until_max_attempts_and_the_row_fails_with_the_last_exception_text(DurableTesting t) {
        FlakyWithFastRetries fsm = new FlakyWithFastRetries();
        InstanceSnapshot failed = runAlone(t, fsm, new Count(0), Status.FAILED);
        assertThat(fsm.failures).extracting(Failure::attempt).containsExactly(1, 2, 3);
        assertThat(fsm.failures).extracting(f -> f.error().getMessage()).containsExactly("boom 1", "boom 2", "boom 3");
        assertThat(failed.attempt()).isEqualTo(3);
        assertThat(failed.lastError()).contains("IllegalStateException").contains("boom 3");
    }

    @Test
    void a_thrown_exception_with_one_attempt_allowed_fails_at_once_with_its_text(DurableTesting t) {
        InstanceSnapshot failed = runAlone(t, new OneShot(), new Count(42), Status.FAILED);
        assertThat(failed.attempt()).isEqualTo(1);
        assertThat(failed.lastError()).isEqualTo("java.lang.IllegalArgumentException: bad input 42");
        assertThat(failed.result().isNull()).isTrue();
    }

    @Test
    void an_outcome_whose_state_cannot_be_serialized_goes_to_on_error_and_never_leaves_the_row_executing(DurableTesting t) {
        UnstorableNext fsm = new UnstorableNext();
        Probe db = Kit.probe(t);
        InstanceSnapshot failed = runAlone(t, fsm, new Count(0), Status.FAILED);
        assertThat(fsm.failures).hasSize(1);
        Throwable error = fsm.failures.get(0).error();
        assertThat(error.getMessage()).contains("cannot be stored as JSON").contains("'start'");
        assertThat(error).hasRootCauseMessage("no JSON for you");
        assertThat(failed.lastError()).startsWith("gave up: ").contains("cannot be stored as JSON");
        assertThat(failed.step()).isEqualTo("start");
        assertThat(failed.state().as(Count.class)).isEqualTo(new Count(0));
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE status = 'executing' OR locked_by IS NOT NULL"))
                .isZero();
    }

    @Test
    void an_on_error_answer_that_cannot_be_serialized_either_fails_the_row_instead_of_looping(DurableTesting t) {
        UnstorableTwice fsm = new UnstorableTwice();
        InstanceSnapshot failed = runAlone(t, fsm, new Count(0), Status.FAILED);
        assertThat(fsm.failures).hasSize(1);
        assertThat(fsm.failures.get(0).error().getMessage()).contains("the done outcome").contains("cannot be stored as JSON");
        assertThat(failed.lastError()).contains("cannot be stored as JSON");
        assertThat(failed.attempt()).isEqualTo(1);
    }

    @Test
    void a_step_returning_null_goes_to_on_error(DurableTesting t) {
        ReturnsNull fsm = new ReturnsNull();
        InstanceSnapshot failed = runAlone(t, fsm, new Count(0), Status.FAILED);
        assertThat(fsm.failures).hasSize(1);
        assertThat(fsm.failures.get(0).error()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("returned null");
        assertThat(failed.lastError()).isEqualTo("null outcome");
    }

    @Test
    void a_job_returning_a_value_is_done_with_that_value_as_a_json_object(DurableTesting t) {
        Probe db = Kit.probe(t);
        InstanceSnapshot done = runAlone(t, new Doubler(), new Args(21), Status.DONE);
        assertThat(done.result().as(Receipt.class)).isEqualTo(new Receipt(42, "attempt 1"));
        assertThat(done.lastError()).isNull();
        assertThat(db.string("SELECT jsonb_typeof(result) FROM gen_durable WHERE id = ?", done.id())).isEqualTo("object");
    }

    @Test
    void a_throwing_job_is_retried_with_backoff_and_then_failed_with_the_exception_text(DurableTesting t) {
        FailingJob job = new FailingJob();
        InstanceSnapshot failed = runAlone(t, job, new Args(1), Status.FAILED);
        assertThat(job.attempts).containsExactly(1, 2);
        assertThat(failed.attempt()).isEqualTo(2);
        assertThat(failed.lastError()).isEqualTo("java.io.IOException: disk on fire 2");
        assertThat(Duration.between(failed.insertedAt(), failed.updatedAt())).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void an_outcome_whose_state_postgres_cannot_store_goes_to_on_error_instead_of_failing_the_flush(DurableTesting t) {
        NulState fsm = new NulState();
        InstanceSnapshot failed = runAlone(t, fsm, new Count(0), Status.FAILED);
        assertThat(fsm.failures).hasSize(1);
        assertThat(fsm.failures.get(0).error().getMessage()).contains("cannot be stored as JSON").contains("\\u0000");
        assertThat(failed.lastError()).startsWith("gave up: ");
        assertThat(failed.step()).isEqualTo("start");
        assertThat(Kit.engine(t).metrics().flushErrors.sum()).isZero();
    }

    @Test
    void a_stop_whose_error_text_holds_a_nul_character_still_fails_the_row_with_the_rest_of_the_text(DurableTesting t) {
        InstanceSnapshot failed = runAlone(t, new NulError(), new Count(0), Status.FAILED);
        assertThat(failed.lastError()).startsWith("bad").endsWith("byte").doesNotContain("\u0000");
        assertThat(Kit.engine(t).metrics().flushErrors.sum()).isZero();
    }

    /**
     * Defect 8 of issue 13: a failed attempt's {@code last_error} stayed on the row after the
     * instance went on and succeeded, so a DONE instance showed an error it had recovered from.
     * The error is kept while the step retries (the retry sees it), and cleared by progress.
     */
    @Test
    void the_error_of_a_retried_attempt_is_kept_while_it_retries_and_cleared_once_the_instance_moves_on(DurableTesting t) {
        t.register(new FailsOnce());
        Inserted r = t.durable().insert(FailsOnce.class, new Count(0), io.gendurable.InsertOptions.builder().step("a").build());
        t.drain(DUE_ONLY);
        InstanceSnapshot retrying = t.assertStatus(r.id(), Status.RUNNABLE);
        assertThat(retrying.lastError()).contains("first try fails");
        t.drain();
        InstanceSnapshot done = t.assertStatus(r.id(), Status.DONE);
        assertThat(done.lastError()).isNull();
    }
}
