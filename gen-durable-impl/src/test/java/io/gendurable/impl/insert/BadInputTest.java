package io.gendurable.impl.insert;

import io.gendurable.AwaitResult;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.FsmNames;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.SignalTarget;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.support.Kit;
import io.gendurable.impl.support.Probe;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.GenDurableTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bad-input catalogue ({@code docs/errors.md}) rows that no other test class covers: each
 * rejection names the field and its accepted values, and leaves every table as it was. On the test
 * kit: rows that must stay live go to the queue {@code parked}, which the drains here leave alone.
 */
@GenDurableTest(fsms = {BadInputTest.Parker.class, BadInputTest.Outsized.class}, config = {
        "gendurable.max-value-bytes=4096", "gendurable.rate-limits.psp.allowed=5", "gendurable.rate-limits.psp.burst=5"})
class BadInputTest {
    private static final String PARKED = "parked";
    private static final String[] TABLES = {"gen_durable", "signals", "gen_durable_buckets"};

    public record Item(String text) {
    }

    /** Parks until signalled; never finishes on its own. */
    public static class Parker implements Fsm<Item> {
        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            return Outcome.await(Set.of("go"), "after", s);
        }
    }

    /** Answers whatever the state's text asks for: an oversized state, result or fan-out. */
    @DurableFsm(name = "outsized", maxAttempts = 1)
    public static class Outsized implements Fsm<Item> {
        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            String big = "é".repeat(3000);  // 6,000 bytes of UTF-8 in 3,000 chars
            return switch (s.text()) {
                case "next" -> Outcome.next("later", new Item(big));
                case "retry" -> Outcome.retry(Duration.ZERO, new Item(big));
                case "await" -> Outcome.await(Set.of("go"), "later", new Item(big));
                case "done" -> Outcome.done(new Item(big));
                case "children" -> Outcome.scheduleChildren(
                        List.of(new NewInstance(FsmNames.nameOf(Parker.class), new Item("child"), null),
                                new NewInstance("no.such.Fsm", new Item("child"), null)), "later", s);
                case "null-child" -> Outcome.scheduleChildren(
                        List.of(new NewInstance(FsmNames.nameOf(Parker.class), new Item("child"), null),
                                new NewInstance(FsmNames.nameOf(Parker.class), null, null)), "later", s);
                default -> throw new IllegalStateException(s.text());
            };
        }
    }

    @DurableFsm(name = " ")
    public static class BlankName extends Parker {
    }

    @DurableFsm(initialStep = "")
    public static class BlankInitialStep extends Parker {
    }

    @DurableFsm(version = 0)
    public static class VersionZero extends Parker {
    }

    @DurableFsm(queue = "my queue")
    public static class BadQueue extends Parker {
    }

    @DurableFsm(maxAttempts = 0)
    public static class NoAttempts extends Parker {
    }

    DurableTesting t;
    Engine engine;
    Probe db;

    @BeforeEach
    void up(DurableTesting t) {
        this.t = t;
        engine = Kit.engine(t);
        db = Kit.probe(t);
    }

    private String counts() {
        return Arrays.stream(TABLES).map(t -> t + "=" + db.count("SELECT count(*) FROM " + t)).toList().toString();
    }

    private long parked(String text) {
        return engine.insert(Parker.class, new Item(text), InsertOptions.builder().queue(PARKED).build()).id();
    }

    private static void rejected(Executable call, String... messageParts) {
        assertThatThrownBy(call::execute).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll(messageParts);
    }

    @Test
    void null_blank_and_over_long_names_are_rejected_naming_the_field_and_nothing_is_written() {
        long id = parked("x");
        String before = counts();
        String fsm = FsmNames.nameOf(Parker.class);
        String long256 = "k".repeat(256);

        rejected(() -> new NewInstance(null, new Item("x"), null), "fsm must not be null or blank");
        rejected(() -> new NewInstance(" ", new Item("x"), null), "fsm must not be null or blank");
        rejected(() -> new NewInstance(long256, new Item("x"), null), "fsm must be at most 255 characters");
        rejected(() -> InsertOptions.builder().step("").build(), "step must not be null or blank");
        rejected(() -> InsertOptions.builder().correlationKey(long256).build(), "correlationKey must be at most 255");
        rejected(() -> InsertOptions.builder().concurrencyKey("\t").build(), "concurrencyKey must not be null or blank");
        rejected(() -> InsertOptions.builder().rateLimit(" ").build(), "rateLimit must not be null or blank");
        rejected(() -> InsertOptions.builder().rateLimit("psp:eu").build(), "cannot contain ':'");
        rejected(() -> InsertOptions.builder().rateLimit("psp", "").build(), "partition must not be null or blank");
        rejected(() -> Outcome.next(" ", null), "step must not be null or blank");
        rejected(() -> Outcome.next("a", null).concurrencyKey(""), "concurrencyKey must not be null or blank");
        rejected(() -> Outcome.next("a", null).rateLimit("psp", " "), "partition must not be null or blank");
        rejected(() -> engine.find(" "), "correlationKey must not be null or blank");
        rejected(() -> engine.find(long256), "correlationKey must be at most 255");
        assertThatThrownBy(() -> engine.find((String) null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("correlationKey");
        assertThatThrownBy(() -> engine.insert(null, new Item("x"))).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("fsm");
        assertThatThrownBy(() -> engine.insert((NewInstance) null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("instance");
        List<NewInstance> withNull = new ArrayList<>();
        withNull.add(new NewInstance(fsm, new Item("ok"), InsertOptions.builder().queue(PARKED).build()));
        withNull.add(null);
        rejected(() -> engine.insertAll(withNull), "instances[1] is null");
        assertThatThrownBy(() -> Outcome.stop(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("error");

        assertThat(counts()).isEqualTo(before);
        assertThat(engine.find(id).orElseThrow().status()).isEqualTo(Status.RUNNABLE);
    }

    @Test
    void names_with_a_nul_character_are_rejected_at_every_entry_point_and_nothing_is_written() {
        long id = parked("x");
        String before = counts();
        String nul = "a\u0000b";
        SignalTarget target = SignalTarget.id(id);

        rejected(() -> new NewInstance(nul, new Item("x"), null), "fsm must not contain a NUL");
        rejected(() -> InsertOptions.builder().step(nul).build(), "step must not contain a NUL");
        rejected(() -> InsertOptions.builder().correlationKey(nul).build(), "correlationKey must not contain a NUL");
        rejected(() -> InsertOptions.builder().concurrencyKey(nul).build(), "concurrencyKey must not contain a NUL");
        rejected(() -> InsertOptions.builder().rateLimit(nul).build(), "rateLimit must not contain a NUL");
        rejected(() -> InsertOptions.builder().rateLimit("psp", nul).build(), "partition must not contain a NUL");
        rejected(() -> InsertOptions.builder().queue(nul).build(), "queue must not contain a NUL");
        rejected(() -> engine.signal(target, nul, null), "name must not contain a NUL");
        rejected(() -> engine.signal(target, "go", null, nul), "dedupKey must not contain a NUL");
        rejected(() -> engine.signal(SignalTarget.correlationKey(nul), "go", null), "correlationKey must not contain a NUL");
        rejected(() -> engine.find(nul), "correlationKey must not contain a NUL");
        rejected(() -> Outcome.next(nul, null), "step must not contain a NUL");
        rejected(() -> Outcome.await(Set.of(nul), "next", null), "signal name must not contain a NUL");

        assertThat(counts()).isEqualTo(before);
        assertThat(engine.find(id).orElseThrow().status()).isEqualTo(Status.RUNNABLE);
    }

    @Test
    void a_weight_below_one_or_above_the_burst_of_its_rate_limit_is_rejected_and_nothing_is_written() {
        String before = counts();

        rejected(() -> InsertOptions.builder().weight(0).build(), "weight must be 1 or more, got 0");
        rejected(() -> Outcome.next("a", null).weight(-3), "weight must be 1 or more, got -3");
        rejected(() -> engine.insert(Parker.class, new Item("fat"),
                InsertOptions.builder().rateLimit("psp", "eu").weight(6).build()),
                "weight 6 exceeds the burst 5 of rate limit 'psp'", "could never be admitted");
        assertThat(counts()).isEqualTo(before);

        // an unconfigured limit is allowed (the row stalls and is counted, see RateLimitTest)
        engine.insert(Parker.class, new Item("unknown"), InsertOptions.builder().queue(PARKED).rateLimit("nope").weight(99).build());
        assertThat(db.count("SELECT count(*) FROM gen_durable")).isEqualTo(1);
    }

    @Test
    void a_correlation_scope_without_every_live_status_is_rejected_and_nothing_is_written() {
        String before = counts();

        rejected(() -> InsertOptions.builder().correlationKey("k").correlationScope(Status.DONE).build(),
                "correlationScope must hold every live status", "DONE");
        rejected(() -> InsertOptions.builder().correlationKey("k").correlationScope(Status.RUNNABLE).build(),
                "correlationScope must hold every live status");
        rejected(() -> InsertOptions.builder().correlationKey("k").correlationScope(Status.RUNNABLE, Status.EXECUTING,
                Status.AWAITING_SIGNAL).build(), "AWAITING_CHILDREN");
        assertThat(counts()).isEqualTo(before);

        InsertOptions withDone = InsertOptions.builder().queue(PARKED).correlationKey("k").correlationScope(
                Status.RUNNABLE, Status.EXECUTING, Status.AWAITING_SIGNAL, Status.AWAITING_CHILDREN, Status.DONE,
                Status.FAILED).build();
        assertThat(engine.insert(Parker.class, new Item("kept"), withDone).duplicate()).isFalse();
    }

    @Test
    void absurd_schedules_delays_and_timeouts_are_rejected_at_construction() {
        Duration millennium = Duration.ofDays(365L * 1000);
        Duration tooLong = millennium.plusDays(1);

        rejected(() -> InsertOptions.builder().scheduleIn(Duration.ofSeconds(-1)), "scheduleIn must be zero or positive");
        rejected(() -> InsertOptions.builder().scheduleIn(tooLong), "scheduleIn must be at most 1,000 years");
        assertThatThrownBy(() -> InsertOptions.builder().scheduleIn(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("scheduleIn");
        rejected(() -> InsertOptions.builder().scheduleAt(Instant.parse("+10000-01-01T00:00:00Z")).build(),
                "scheduledAt must be within the years 1 to 9999");
        rejected(() -> InsertOptions.builder().scheduleAt(Instant.MIN).build(), "scheduledAt must be within");
        rejected(() -> Outcome.retry(Duration.ofMillis(-1)), "delay must be zero or positive");
        rejected(() -> Outcome.retry(tooLong), "delay must be at most 1,000 years");
        rejected(() -> Outcome.await(Set.of("go"), "next", null, tooLong), "timeout must be at most 1,000 years");
        rejected(() -> engine.await(1, Duration.ofMillis(-1)), "timeout must be zero or positive");

        assertThat(Outcome.retry(millennium).delay()).isEqualTo(millennium);
        assertThat(InsertOptions.builder().scheduleAt(Instant.parse("9999-12-31T00:00:00Z")).build().scheduledAt())
                .isEqualTo(Instant.parse("9999-12-31T00:00:00Z"));
        assertThat(db.count("SELECT count(*) FROM gen_durable")).isZero();
    }

    @Test
    void an_await_timeout_past_the_nanosecond_range_waits_instead_of_overflowing() {
        long id = engine.insert(Parker.class, new Item("x")).id();
        t.drain("default");
        t.assertAwaiting(id, "go");

        // Duration.toNanos() overflows past ~292 years: the answer must come from the row, not an ArithmeticException
        AwaitResult r = engine.await(id, Duration.ofDays(365L * 300));

        assertThat(r).isInstanceOfSatisfying(AwaitResult.Awaiting.class, a -> assertThat(a.snapshot().id()).isEqualTo(id));
    }

    @Test
    void a_state_or_payload_over_max_value_bytes_is_rejected_naming_the_limit_and_nothing_is_written() {
        long id = parked("x");
        String before = counts();
        String big = "é".repeat(2100);  // 2,100 chars but 4,200 bytes: the limit counts bytes

        rejected(() -> engine.insert(Parker.class, new Item(big)), "the state of a new", "bytes as JSON",
                "the limit is 4096 (gendurable.max-value-bytes)");
        rejected(() -> engine.insertAll(List.of(NewInstance.of(Parker.class, new Item("ok")),
                NewInstance.of(Parker.class, new Item(big)))), "gendurable.max-value-bytes");
        rejected(() -> engine.signal(SignalTarget.id(id), "go", new Item(big)), "the payload of signal 'go'",
                "gendurable.max-value-bytes");

        assertThat(counts()).isEqualTo(before);
        long fits = engine.insert(Parker.class, new Item("é".repeat(1900)), InsertOptions.builder().queue(PARKED).build()).id();
        assertThat(engine.find(fits)).isPresent();
    }

    @Test
    void a_step_whose_state_or_result_exceeds_max_value_bytes_goes_to_on_error_and_nothing_is_half_written() {
        for (String kind : List.of("next", "retry", "await", "done")) {
            long id = engine.insert(Outsized.class, new Item(kind)).id();
            t.drain("default");
            t.assertFailed(id);
            var failed = engine.find(id).orElseThrow();
            assertThat(failed.lastError()).as(kind).contains("cannot be stored as JSON").contains("gendurable.max-value-bytes");
            assertThat(failed.state().as(Item.class)).as(kind).isEqualTo(new Item(kind));
            assertThat(failed.result().isNull()).as(kind).isTrue();
            assertThat(failed.step()).as(kind).isEqualTo("start");
        }
        assertThat(db.count("SELECT count(*) FROM signals")).isZero();
    }

    @Test
    void a_fan_out_naming_an_unknown_fsm_goes_to_on_error_and_inserts_no_child() {
        long id = engine.insert(Outsized.class, new Item("children")).id();
        t.drain("default");
        t.assertFailed(id);

        assertThat(engine.find(id).orElseThrow().lastError()).contains("children[1]").contains("'no.such.Fsm'")
                .contains("not registered");
        assertThat(db.count("SELECT count(*) FROM gen_durable")).isEqualTo(1);
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE parent_id IS NOT NULL")).isZero();
    }

    /**
     * Issue 13, defect 8a. Before: {@code insert(Fsm.class, null)} was accepted and stored a row
     * whose state was empty, so the mistake (a forgotten argument) surfaced later, inside the first
     * step, as a {@code NullPointerException} and retries. Now a null initial state is refused at
     * the call, naming the field, before any statement: every entry point, a batch with one null
     * among good instances (nothing of it is written), and a fan-out child (the step's
     * {@code onError}, no child inserted). {@code Outcome.next(step, null)} inside a running
     * instance stays allowed, as documented.
     */
    @Test
    void a_null_initial_state_is_rejected_naming_the_field_and_nothing_is_written() {
        parked("x");
        String before = counts();
        String fsm = FsmNames.nameOf(Parker.class);

        rejected(() -> engine.insert(Parker.class, null), "state must not be null", fsm);
        rejected(() -> engine.insert(Parker.class, null, InsertOptions.builder().queue(PARKED).build()), "state must not be null");
        rejected(() -> engine.insert(new NewInstance(fsm, null, null)), "state must not be null", fsm);
        rejected(() -> engine.insertAll(List.of(new NewInstance(fsm, new Item("good"), null),
                new NewInstance(fsm, null, null))), "state must not be null");
        rejected(() -> NewInstance.of(Parker.class, null), "state must not be null");
        assertThat(counts()).isEqualTo(before);

        long parent = engine.insert(Outsized.class, new Item("null-child")).id();
        t.drain("default");
        t.assertFailed(parent);
        assertThat(engine.find(parent).orElseThrow().lastError()).contains("state must not be null");
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE parent_id IS NOT NULL")).isZero();
    }

    @Test
    void a_durable_fsm_annotation_with_a_blank_name_or_step_a_bad_version_queue_or_max_attempts_is_refused_at_registration() {
        Map<Class<? extends Parker>, String> bad = Map.of(
                BlankName.class, "@DurableFsm name must be a non-blank name",
                BlankInitialStep.class, "@DurableFsm initialStep must be a non-blank name",
                VersionZero.class, "@DurableFsm version must be 1 or more",
                BadQueue.class, "@DurableFsm queue must use only letters",
                NoAttempts.class, "@DurableFsm maxAttempts must be 1 or more");
        bad.forEach((type, message) -> assertThatThrownBy(() -> FsmDefinition.of(type, Parker::new))
                .as(type.getSimpleName()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message).hasMessageContaining(type.getName()));
        assertThat(FsmDefinition.of(Parker.class, Parker::new).name()).isEqualTo(Parker.class.getName());
    }
}
