package io.gendurable.impl.engine;

import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.support.EngineHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.InstantSource;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DrainRunnerTest {
    public record S(int n) {
    }

    public static class Once implements Fsm<S> {
        @Override
        public Outcome step(String step, S s, StepContext ctx) {
            return Outcome.done(Thread.currentThread().getName());
        }
    }

    final EngineHarness h = new EngineHarness("drainrunner");

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void a_prepared_engine_runs_a_pick_in_the_calling_thread_through_the_flush() {
        Engine e = h.build("n1", c -> c, InstantSource.system(), new Once());
        e.prepare();
        long id = e.insert(Once.class, new S(1)).id();

        List<DrainRunner.Ran> ran = EngineInternals.drainRunner(e).runOnce("default", 10, 10);

        assertThat(ran).extracting(DrainRunner.Ran::id, DrainRunner.Ran::outcome).containsExactly(
                org.assertj.core.groups.Tuple.tuple(id, "done"));
        assertThat(e.find(id).orElseThrow().result().as(String.class)).isEqualTo(Thread.currentThread().getName());
        assertThat(e.metrics().flushes.sum()).as("written by the production flush").isEqualTo(1);
        assertThat(EngineInternals.drainRunner(e).runOnce("default", 10, 10)).isEmpty();
    }

    @Test
    void a_started_engine_refuses_to_drain() {
        Engine e = h.start("n1", c -> c, new Once());

        assertThatThrownBy(() -> EngineInternals.drainRunner(e).runOnce("default", 1, 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("prepared, not started");
    }
}
