package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
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
@EngineTest
class PickOrderTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

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

    private static EngineConfig.Builder oneAtATime(EngineConfig.Builder c, String queue) {
        return c.queues(Map.of(queue, 1)).prefetch(0).minDemand(1);
    }

    @Test
    void with_concurrency_one_and_no_prefetch_rows_run_in_priority_then_eligible_at_order(EngineHarness h) {
        Recorder recorder = new Recorder(InstantSource.system());
        // An insert-only node migrates the schema and inserts while no worker runs.
        Engine inserter = h.start("inserter", c -> c.queues(Map.of()), recorder);
        Instant base = Instant.now().truncatedTo(ChronoUnit.MILLIS).minus(Duration.ofHours(1));
        List<Planned> plan = new ArrayList<>();
        Random random = new Random(42);
        for (int i = 0; i < 15; i++) {
            // distinct instants, priorities 0..2 mixed so neither id nor eligible_at order alone is the answer
            plan.add(new Planned("r" + i, random.nextInt(3), base.plusSeconds(i * 7L)));
        }
        Collections.shuffle(plan, random);
        List<NewInstance> batch = plan.stream().map(p -> NewInstance.of(Recorder.class, new Tag(p.name()),
                InsertOptions.builder().queue("order").priority(p.priority()).scheduleAt(p.eligibleAt()).build())).toList();
        assertThat(inserter.insertAll(batch)).noneMatch(Inserted::duplicate);
        List<String> expected = plan.stream()
                .sorted(Comparator.comparingInt(Planned::priority).thenComparing(Planned::eligibleAt))
                .map(Planned::name).toList();
        assertThat(expected).as("the plan must differ from insertion order to prove anything")
                .isNotEqualTo(plan.stream().map(Planned::name).toList());

        h.start("worker", c -> oneAtATime(c, "order"), recorder);

        await().atMost(WAIT).until(() -> recorder.ran.size() == plan.size());
        assertThat(recorder.ran).containsExactlyElementsOf(expected);
    }

    @Test
    void a_row_scheduled_in_the_future_is_not_picked_until_the_clock_reaches_it(EngineHarness h) {
        TestClock clock = new TestClock();
        Recorder recorder = new Recorder(clock);
        Engine worker = h.start("worker", c -> oneAtATime(c, "later"), clock, recorder);
        Instant at = clock.instant().plus(Duration.ofHours(1));

        Inserted future = worker.insert(Recorder.class, new Tag("future"),
                InsertOptions.builder().queue("later").priority(0).scheduleAt(at).build());
        // A due row of a worse priority proves the queue is being picked while the future row waits.
        Inserted due = worker.insert(Recorder.class, new Tag("due"), InsertOptions.builder().queue("later").priority(5).build());
        await().atMost(WAIT).until(() -> worker.find(due.id()).orElseThrow().status() == Status.DONE);
        long picks = worker.metrics().picks.sum();
        await().atMost(WAIT).until(() -> worker.metrics().picks.sum() >= picks + 3);

        var waiting = worker.find(future.id()).orElseThrow();
        assertThat(waiting.status()).isEqualTo(Status.RUNNABLE);
        assertThat(waiting.attempt()).isEqualTo(1);
        assertThat(waiting.eligibleAt()).isEqualTo(at);
        assertThat(recorder.ran).containsExactly("due");

        clock.advanceTo(at);

        await().atMost(WAIT).until(() -> worker.find(future.id()).orElseThrow().status() == Status.DONE);
        assertThat(recorder.ran).containsExactly("due", "future");
        assertThat(recorder.ranAt.get(1)).isAfterOrEqualTo(at);
    }

    @Test
    void a_row_scheduled_a_moment_ahead_on_the_real_clock_runs_no_earlier_than_its_instant(EngineHarness h) {
        Recorder recorder = new Recorder(InstantSource.system());
        Engine worker = h.start("worker", c -> oneAtATime(c, "soon"), recorder);
        Instant at = Instant.now().plusMillis(700);

        Inserted soon = worker.insert(Recorder.class, new Tag("soon"),
                InsertOptions.builder().queue("soon").scheduleAt(at).build());

        await().atMost(WAIT).until(() -> worker.find(soon.id()).orElseThrow().status() == Status.DONE);
        assertThat(recorder.ranAt).hasSize(1);
        assertThat(recorder.ranAt.get(0)).isAfterOrEqualTo(at);
    }
}
