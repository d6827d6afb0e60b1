package io.gendurable.impl.control;

import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.PokeTransport;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A resumed queue runs again at once, on the node that resumed it and on a node that hears of it
 * through the poke, not at their next refresh of the paused queues (every poll interval: 30 s
 * here, so that only the resume itself can explain a start within seconds).
 */
@EngineTest
class ResumeAtOnceTest {
    private static final Duration SLOW_POLL = Duration.ofSeconds(30);

    @Test
    void the_node_that_resumes_a_queue_runs_its_rows_at_once(EngineHarness h) {
        Fsms.Noop fsm = new Fsms.Noop();
        Engine e = h.start("a", c -> c.poll(SLOW_POLL, SLOW_POLL), fsm);
        e.operations().pauseQueue("default", "deploy");
        assertThat(e.pausedQueues()).as("the acting node's view, at once").containsExactly("default");
        h.insertBacklog(fsm, 5);

        assertThat(e.operations().resumeQueue("default")).isTrue();
        assertThat(e.pausedQueues()).as("the acting node's view, at once").isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> fsm.runs.get() == 5);
    }

    @Test
    void a_node_that_hears_the_resume_through_the_poke_runs_its_rows_at_once(EngineHarness h) {
        Fsms.Noop fsm = new Fsms.Noop();
        Engine b = h.start("b", c -> c.poll(SLOW_POLL, SLOW_POLL).poke(PokeTransport.POSTGRES), fsm);
        Engine a = h.start("a", c -> c.queues(Map.of()).poke(PokeTransport.POSTGRES), fsm);
        a.operations().pauseQueue("default", "deploy");
        // b hears of the pause at its next refresh (30 s): its refresh is forced here
        EngineInternals.pauses(b).refresh();
        assertThat(b.pausedQueues()).containsExactly("default");
        h.insertBacklog(fsm, 5);

        assertThat(a.operations().resumeQueue("default")).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> fsm.runs.get() == 5);
    }
}
