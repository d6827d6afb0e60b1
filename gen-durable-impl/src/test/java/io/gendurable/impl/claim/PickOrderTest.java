package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.testing.DrainOptions;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.GenDurableTest;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The pick order is exactly (queue, priority, eligible_at), and nothing is picked before its eligible instant. */
class PickOrderTest {
    public record Tag(String name) {
    }

    /** Records which row ran, and when by the engine's clock, then completes. */
    public static class Recorder implements Fsm<Tag> {
        final List<String> ran = new CopyOnWriteArrayList<>();
        final List<Instant> ranAt = new CopyOnWriteArrayList<>();
        final InstantSource clock;

        Recorder(InstantSource clock) {
            this.clock = clock;
        }

        @Override
        public Outcome step(String step, Tag tag, StepContext ctx) {
            ranAt.add(clock.instant());
            ran.add(tag.name());
            return Outcome.done();
        }
    }

    private record Planned(String name, int priority, Instant eligibleAt) {
    }

    /** The order and the eligible instant as one thread sees them: each drain pick is the production claim. */
    @Nested
    @GenDurableTest(config = "gendurable.queues=order:1,later:1")
    class ByTheTestClock {
        private static final DrainOptions DUE_ONLY = DrainOptions.defaults().collapseDelays(false);

        @Test
        void rows_run_in_priority_then_eligible_at_order(DurableTesting t) {
            Recorder recorder = new Recorder(t.clock());
            t.register(recorder);
            Instant base = t.now().minus(Duration.ofHours(1));
            List<Planned> plan = new ArrayList<>();
            Random random = new Random(42);
            for (int i = 0; i < 15; i++) {
                // distinct instants, priorities 0..2 mixed so neither id nor eligible_at order alone is the answer
                plan.add(new Planned("r" + i, random.nextInt(3), base.plusSeconds(i * 7L)));
            }
            Collections.shuffle(plan, random);
            List<NewInstance> batch = plan.stream().map(p -> NewInstance.of(Recorder.class, new Tag(p.name()),
                    InsertOptions.builder().queue("order").priority(p.priority()).scheduleAt(p.eligibleAt()).build()))
                    .toList();
            assertThat(t.durable().insertAll(batch)).noneMatch(Inserted::duplicate);
            List<String> expected = plan.stream()
                    .sorted(Comparator.comparingInt(Planned::priority).thenComparing(Planned::eligibleAt))
                    .map(Planned::name).toList();
            assertThat(expected).as("the plan must differ from insertion order to prove anything")
                    .isNotEqualTo(plan.stream().map(Planned::name).toList());

            t.drain(DUE_ONLY);

            assertThat(recorder.ran).containsExactlyElementsOf(expected);
        }

        @Test
        void a_row_scheduled_in_the_future_is_not_picked_until_the_clock_reaches_it(DurableTesting t) {
            Recorder recorder = new Recorder(t.clock());
            t.register(recorder);
            Instant at = t.now().plus(Duration.ofHours(1));

            Inserted future = t.durable().insert(Recorder.class, new Tag("future"),
                    InsertOptions.builder().queue("later").priority(0).scheduleAt(at).build());
            // A due row of a worse priority proves the queue is being picked while the future row waits.
            Inserted due = t.durable().insert(Recorder.class, new Tag("due"),
                    InsertOptions.builder().queue("later").priority(5).build());
            t.drain(DUE_ONLY);
            t.assertDone(due.id());
            t.clock().advance(Duration.ofMinutes(59));
            assertThat(t.drain(DUE_ONLY).steps()).isEmpty();

            var waiting = t.assertStatus(future.id(), Status.RUNNABLE);
            assertThat(waiting.attempt()).isEqualTo(1);
            assertThat(waiting.eligibleAt()).isEqualTo(at);
            assertThat(recorder.ran).containsExactly("due");

            t.clock().advanceTo(at);

            t.drain(DUE_ONLY);
            t.assertDone(future.id());
            assertThat(recorder.ran).containsExactly("due", "future");
            assertThat(recorder.ranAt.get(1)).isAfterOrEqualTo(at);
        }
    }

    /** The eligible instant against the system clock, on a started engine polling for it. */
    @Nested
    @EngineTest
    class ByTheRealClock {
        @Test
        void a_row_scheduled_a_moment_ahead_on_the_real_clock_runs_no_earlier_than_its_instant(EngineHarness h) {
            Recorder recorder = new Recorder(InstantSource.system());
            Engine worker = h.start("worker", c -> c.queues(Map.of("soon", 1)).prefetch(0).minDemand(1), recorder);
            Instant at = Instant.now().plusMillis(700);

            Inserted soon = worker.insert(Recorder.class, new Tag("soon"),
                    InsertOptions.builder().queue("soon").scheduleAt(at).build());

            await().atMost(Duration.ofSeconds(15))
                    .until(() -> worker.find(soon.id()).orElseThrow().status() == Status.DONE);
            assertThat(recorder.ranAt).hasSize(1);
            assertThat(recorder.ranAt.get(0)).isAfterOrEqualTo(at);
        }
    }
}
