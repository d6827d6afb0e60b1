package io.gendurable.impl.engine;

import io.gendurable.Fsm;
import io.gendurable.Inserted;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.support.EngineHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class SmokeTest {
    public record Counter(int n) {
    }

    public static class CountToThree implements Fsm<Counter> {
        @Override
        public Outcome step(String step, Counter s, StepContext ctx) {
            return s.n() < 3 ? Outcome.next("start", new Counter(s.n() + 1)) : Outcome.done(s);
        }
    }

    static EngineHarness h;
    static Engine engine;

    @BeforeAll
    static void up() {
        h = new EngineHarness("smoke");
        engine = h.start("n1", c -> c, new CountToThree());
    }

    @AfterAll
    static void down() {
        h.close();
    }

    @Test
    void a_three_step_fsm_runs_to_done_with_its_state_as_a_json_object() {
        Inserted r = engine.insert(CountToThree.class, new Counter(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.find(r.id()).orElseThrow().status() == Status.DONE);
        var snap = engine.find(r.id()).orElseThrow();
        assertThat(snap.result().as(Counter.class)).isEqualTo(new Counter(3));
        assertThat(snap.state().json()).contains("\"n\": 3");
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE jsonb_typeof(state) = 'object'")).isEqualTo(1);
    }
}
