package io.gendurable.impl.control;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InstanceDetails;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.StepRecord;
import io.gendurable.testing.DurableTesting;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The step history (issue 15, item 2): opt-in per FSM or everywhere, written with the outcome it records. */
class StepHistoryTest {
    public record Count(int n) {
    }

    /** start → twice "count" (the first fails once and retries) → done. Not recorded unless configured. */
    public static class Plain implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count c, StepContext ctx) {
            if (step.equals("start")) {
                return Outcome.next("count", c);
            }
            if (c.n() == 0 && ctx.attempt() == 1) {
                throw new IllegalStateException("first try fails");
            }
            return c.n() < 2 ? Outcome.next("count", new Count(c.n() + 1)) : Outcome.done(c.n());
        }

        @Override
        public Outcome onError(String step, Count c, StepContext ctx, Throwable error) {
            return Outcome.retry(Duration.ofSeconds(1));
        }
    }

    /** The same, recorded whatever the configuration. */
    @DurableFsm(history = true)
    public static class Recorded extends Plain {
    }

    /** Cancels itself while its step runs: the step's outcome is stale and leaves no record. */
    @DurableFsm(history = true)
    public static class CancelsItself implements Fsm<Count> {
        static final AtomicReference<DurableTesting> T = new AtomicReference<>();

        @Override
        public Outcome step(String step, Count c, StepContext ctx) {
            T.get().operations().cancel(ctx.id(), "mid-step");
            return Outcome.next("never", c);
        }
    }

    @Test
    void a_recorded_fsm_gets_one_record_per_committed_step_and_others_none() {
        try (DurableTesting t = DurableTesting.builder().fsm(new Plain(), new Recorded(), new CancelsItself()).build()) {
            CancelsItself.T.set(t);
            long recorded = t.durable().insert(Recorded.class, new Count(0)).id();
            long plain = t.durable().insert(Plain.class, new Count(0)).id();
            long cancelled = t.durable().insert(CancelsItself.class, new Count(0)).id();
            t.drain();

            InstanceDetails d = t.operations().inspect(recorded).orElseThrow();
            assertThat(d.history()).extracting(StepRecord::step, StepRecord::attempt, StepRecord::outcome).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("start", 1, "next"),
                    org.assertj.core.groups.Tuple.tuple("count", 1, "retry"),
                    org.assertj.core.groups.Tuple.tuple("count", 2, "next"),
                    org.assertj.core.groups.Tuple.tuple("count", 1, "next"),
                    org.assertj.core.groups.Tuple.tuple("count", 1, "done"));
            StepRecord failed = d.history().get(1);
            assertThat(failed.error()).contains("first try fails");
            assertThat(failed.node()).isNotBlank();
            assertThat(failed.finishedAt()).isAfterOrEqualTo(failed.startedAt());
            assertThat(failed.state()).as("include-state is off").isNull();
            assertThat(t.operations().inspect(plain).orElseThrow().history()).isEmpty();
            assertThat(t.operations().inspect(cancelled).orElseThrow().history()).as("a stale outcome is not history").isEmpty();
        }
    }

    @Test
    void history_everywhere_with_the_committed_state() {
        try (DurableTesting t = DurableTesting.builder().fsm(new Plain())
                .config("gendurable.history.enabled", "true").config("gendurable.history.include-state", "true").build()) {
            long id = t.durable().insert(Plain.class, new Count(0)).id();
            t.drain();

            var history = t.operations().inspect(id).orElseThrow().history();
            assertThat(history).hasSize(5);
            assertThat(history.get(0).state().toString().replace(" ", "")).contains("\"n\":0");
            assertThat(history.get(3).state().toString().replace(" ", "")).contains("\"n\":2");
            assertThat(history.get(4).state()).as("done commits no state").isNull();
        }
    }
}
