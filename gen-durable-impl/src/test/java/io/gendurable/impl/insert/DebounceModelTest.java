package io.gendurable.impl.insert;

import io.gendurable.Debounce;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.support.ModelSeeds;
import io.gendurable.testing.DrainOptions;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.RanStep;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Debounce against a model: random sequences of debounced inserts (three keys, one of them
 * {@link Debounce.State#FIRST}), clock moves and drains (the production claim of what is due) under
 * the kit, compared after every step with a small model of each key's waiting instance.
 * <ul>
 * <li>at most one instance per key waits, and it is the model's: its id, its start (a window after
 *     the latest insert of its key, never moved earlier);</li>
 * <li>each insert answers the waiting instance ({@code debounced}) or a new one, as the model says;</li>
 * <li>a drain runs exactly the instances whose window has passed, once each, with the last
 *     insert's state (the first's for the {@code FIRST} key): the last write wins, at most one run
 *     per window;</li>
 * <li>nothing is lost: at the end every id an insert answered has run exactly once.</li>
 * </ul>
 * {@code -Ddebounce.model.seeds=20 -Ddebounce.model.steps=600} runs more (a failure names its seed and step).
 */
class DebounceModelTest {
    private static final Duration WINDOW = Duration.ofSeconds(10);
    private static final String[] KEYS = {"a", "b", "first"};
    private static final DrainOptions DUE_ONLY = DrainOptions.defaults().collapseDelays(false);

    /** Done at once with its state. */
    @DurableFsm(name = "debounce-model")
    public static class Job implements Fsm<String> {
        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            return Outcome.done(s);
        }
    }

    /** The model's waiting instance of a key. */
    private static final class Waiting {
        final long id;
        String state;
        Instant start;

        Waiting(long id, String state, Instant start) {
            this.id = id;
            this.state = state;
            this.start = start;
        }
    }

    @Test
    void inserts_clock_moves_and_drains_agree_with_the_model() {
        int seeds = Integer.getInteger("debounce.model.seeds", 3);
        int steps = Integer.getInteger("debounce.model.steps", 150);
        for (long seed : ModelSeeds.of(seeds)) {
            run(seed, steps);
        }
    }

    private static void run(long seed, int steps) {
        Random rnd = new Random(seed);
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
        try (DurableTesting t = DurableTesting.builder().schemaHint("debmodel").clock(clock).fsm(new Job()).build()) {
            Map<String, Waiting> waiting = new TreeMap<>();
            Map<Long, String> ranWith = new HashMap<>();
            Set<Long> answered = new HashSet<>();
            for (int step = 0; step < steps; step++) {
                String at = "seed " + seed + " step " + step + ": ";
                int op = rnd.nextInt(8);
                if (op < 4) {
                    String key = KEYS[rnd.nextInt(KEYS.length)];
                    String state = key + "#" + step;
                    InsertOptions options = InsertOptions.builder().debounce(key, WINDOW,
                            key.equals("first") ? Debounce.State.FIRST : Debounce.State.LAST).build();
                    Inserted answer = t.durable().insert(Job.class, state, options);
                    answered.add(answer.id());
                    Waiting w = waiting.get(key);
                    Instant end = clock.instant().plus(WINDOW);
                    if (w != null) {
                        assertThat(answer).as(at + "insert of %s while %d waits", key, w.id)
                                .isEqualTo(new Inserted(w.id, false, true));
                        w.start = end.isAfter(w.start) ? end : w.start;
                        if (!key.equals("first")) {
                            w.state = state;
                        }
                    } else {
                        assertThat(answer.debounced()).as(at + "insert of %s with none waiting", key).isFalse();
                        assertThat(ranWith).as(at + "a new instance").doesNotContainKey(answer.id());
                        waiting.put(key, new Waiting(answer.id(), state, end));
                    }
                } else if (op < 6) {
                    clock.advance(Duration.ofMillis(rnd.nextInt((int) WINDOW.toMillis() * 3 / 2 + 1)));
                } else {
                    Set<Long> due = new HashSet<>();
                    for (var it = waiting.values().iterator(); it.hasNext(); ) {
                        Waiting w = it.next();
                        if (!w.start.isAfter(clock.instant())) {
                            due.add(w.id);
                            ranWith.put(w.id, w.state);
                            it.remove();
                        }
                    }
                    List<Long> ran = t.drain(DUE_ONLY).steps().stream().map(RanStep::id).toList();
                    assertThat(ran).as(at + "the drain at %s runs the instances whose window passed, once each",
                            clock.instant()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(due);
                    for (long id : due) {
                        assertThat(t.instance(id).result().as(String.class)).as(at + "instance %d ran with", id)
                                .isEqualTo(ranWith.get(id));
                    }
                }
                check(t, waiting, at);
            }
            // the end: every window passes, every instance runs
            clock.advance(WINDOW.multipliedBy(2));
            waiting.values().forEach(w -> ranWith.put(w.id, w.state));
            List<Long> last = t.drain(DUE_ONLY).steps().stream().map(RanStep::id).toList();
            assertThat(last).as("seed %d: the last drain", seed)
                    .containsExactlyInAnyOrderElementsOf(waiting.values().stream().map(w -> w.id).toList());
            List<InstanceSnapshot> all = t.instances(Job.class);
            assertThat(all).as("seed %d: nothing lost, nothing extra: every answered id ran once", seed)
                    .allMatch(s -> s.status() == Status.DONE)
                    .extracting(InstanceSnapshot::id).containsExactlyInAnyOrderElementsOf(answered);
            for (InstanceSnapshot s : all) {
                assertThat(s.result().as(String.class)).as("seed %d: instance %d", seed, s.id()).isEqualTo(ranWith.get(s.id()));
            }
        }
    }

    /** The rows agree with the model: per key, exactly the model's waiting instance, with its start. */
    private static void check(DurableTesting t, Map<String, Waiting> waiting, String at) {
        Map<String, List<Long>> rows = new TreeMap<>();
        Map<Long, Instant> starts = new HashMap<>();
        for (InstanceSnapshot s : t.instances(Job.class)) {
            if (s.status() == Status.RUNNABLE) {
                String key = s.state().as(String.class).split("#")[0];
                rows.computeIfAbsent(key, k -> new ArrayList<>()).add(s.id());
                starts.put(s.id(), s.eligibleAt());
            }
        }
        Map<String, List<Long>> expected = new TreeMap<>();
        waiting.forEach((k, w) -> expected.put(k, List.of(w.id)));
        assertThat(rows).as(at + "the waiting instance of each key").isEqualTo(expected);
        waiting.forEach((k, w) -> assertThat(starts.get(w.id)).as(at + "the start of %s", k).isEqualTo(w.start));
    }
}
