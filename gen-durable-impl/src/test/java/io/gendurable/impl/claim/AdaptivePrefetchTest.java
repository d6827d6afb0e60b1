package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.FsmNames;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Item;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Auto prefetch ({@code gendurable.prefetch} = -1, the default) adapts to the steps: on a busy
 * queue of short steps the claims grow past the concurrency plus the initial prefetch (fewer,
 * larger claims and flushes), and once steps are slow (rows wait in the buffer) it falls back to
 * the concurrency, so a node does not sit on rows another node could run. A configured prefetch
 * never moves. Every row runs once either way.
 */
@EngineTest
class AdaptivePrefetchTest {
    private static final int SLOW = 100_000;

    /** Finishes at once, or after 150 ms for the items numbered from {@link #SLOW}; counts runs. */
    public static class Paced implements Fsm<Item> {
        final Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            runs.computeIfAbsent(s.n(), k -> new AtomicInteger()).incrementAndGet();
            if (s.n() >= SLOW) {
                try {
                    Thread.sleep(150);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Outcome.done();
        }
    }

    @Test
    void auto_prefetch_grows_on_short_steps_and_falls_back_on_slow_ones(EngineHarness h) {
        int concurrency = 4;
        int n = 4000;
        Paced fsm = new Paced();
        h.insertBacklog(fsm, n);
        Engine e = h.start("worker", c -> c.queues(Map.of("default", concurrency)), fsm);
        Scheduler s = EngineInternals.schedulers(e).get(0);
        h.awaitDone(n);

        long picks = e.metrics().picks.sum();
        long picked = e.metrics().picked.sum();
        System.out.printf("adaptive prefetch: %d rows in %d claims (%.1f a claim), prefetch now %d%n",
                picked, picks, (double) picked / picks, s.prefetch());
        assertThat(s.prefetch()).as("the prefetch grew past the concurrency").isGreaterThan(concurrency)
                .isLessThanOrEqualTo(Demand.autoPrefetchCeiling(concurrency));
        assertThat((double) picked / picks).as("rows a claim")
                .isGreaterThan(2.0 * concurrency);  // the most a claim could take without growing: concurrency + prefetch

        // Now slow steps: the rows claimed ahead wait in the buffer, and the prefetch falls back.
        List<NewInstance> slow = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            slow.add(new NewInstance(FsmNames.nameOf(Paced.class), new Item(SLOW + i), null));
        }
        e.insertAll(slow);
        h.awaitDone(n + slow.size());
        assertThat(s.prefetch()).as("the prefetch after slow steps").isEqualTo(concurrency);

        assertThat(fsm.runs).hasSize(n + slow.size());
        assertThat(fsm.runs.values()).allSatisfy(r -> assertThat(r.get()).isEqualTo(1));
        assertThat(e.metrics().stale.sum()).isZero();
    }

    @Test
    void a_configured_prefetch_never_moves(EngineHarness h) {
        int n = 2000;
        Paced fsm = new Paced();
        h.insertBacklog(fsm, n);
        Engine e = h.start("worker", c -> c.queues(Map.of("default", 4)).prefetch(4), fsm);
        Scheduler s = EngineInternals.schedulers(e).get(0);
        h.awaitDone(n);
        assertThat(s.prefetch()).isEqualTo(4);
        assertThat((double) e.metrics().picked.sum() / e.metrics().picks.sum()).isLessThanOrEqualTo(8.0);
    }
}
