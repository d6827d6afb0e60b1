package io.gendurable.impl.fsm;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@EngineTest
class FsmVersionTest {
    public record Item(int n) {
    }

    @DurableFsm(name = "versioned", version = 2)
    public static class V2 implements Fsm<Item> {
        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            return Outcome.done(Map.of("version", ctx.fsmVersion()));
        }
    }

    @DurableFsm(name = "versioned", version = 1)
    public static class V1 implements Fsm<Item> {
        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            return Outcome.done(Map.of("version", ctx.fsmVersion()));
        }
    }

    @Test
    void inserts_take_the_newest_version_and_each_row_runs_with_the_version_it_was_written_by(EngineHarness h) {
        Engine e = h.start("n1", c -> c, new V1(), new V2());
        long id = e.insert(V2.class, new Item(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(e.find(id).orElseThrow().fsmVersion()).isEqualTo(2);
        assertThat(e.find(id).orElseThrow().result().json()).contains("2");

        Engine web = h.start("web", c -> c.queues(Map.of()), new V1(), new V2());
        long old = web.insert(V1.class, new Item(2)).id();
        h.exec("UPDATE gen_durable SET fsm_version = 1 WHERE id = " + old);
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(old).orElseThrow().status() == Status.DONE);
        assertThat(e.find(old).orElseThrow().result().json()).contains("1");
    }

    @Test
    void a_row_of_a_version_this_node_lacks_fails_with_a_clear_error_and_the_scheduler_goes_on(EngineHarness h) {
        Engine web = h.start("web", c -> c.queues(Map.of()), new V2());
        long orphan = web.insert(V2.class, new Item(1)).id();
        long fine = web.insert(V2.class, new Item(2)).id();
        h.exec("UPDATE gen_durable SET fsm_version = 9 WHERE id = " + orphan);
        Engine e = h.start("n1", c -> c, new V2());
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(orphan).orElseThrow().status() == Status.FAILED
                && e.find(fine).orElseThrow().status() == Status.DONE);
        assertThat(e.find(orphan).orElseThrow().lastError())
                .contains("no FSM registered as 'versioned' version 9").contains("versioned v2");
    }

    @Test
    void a_row_whose_fsm_name_no_node_registers_fails_with_a_clear_error_and_the_scheduler_goes_on(EngineHarness h) {
        Engine web = h.start("web", c -> c.queues(Map.of()), new V2());
        long orphan = web.insert(V2.class, new Item(1)).id();
        long fine = web.insert(V2.class, new Item(2)).id();
        h.exec("UPDATE gen_durable SET fsm = 'renamed.or.Removed' WHERE id = " + orphan);
        Engine e = h.start("n1", c -> c, new V2());
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(orphan).orElseThrow().status() == Status.FAILED
                && e.find(fine).orElseThrow().status() == Status.DONE);
        assertThat(e.find(orphan).orElseThrow().lastError())
                .contains("no FSM registered as 'renamed.or.Removed' version 2").contains("versioned v2");
        assertThat(e.find(orphan).orElseThrow().attempt()).isEqualTo(1);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'")).isZero();
    }

    @Test
    void a_state_that_no_longer_reads_as_the_state_type_fails_the_row_not_the_scheduler(EngineHarness h) {
        Engine web = h.start("web", c -> c.queues(Map.of()), new V2());
        long bad = web.insert(V2.class, new Item(1)).id();
        h.exec("UPDATE gen_durable SET state = '{\"n\": \"not a number\"}' WHERE id = " + bad);
        long good = web.insert(V2.class, new Item(2)).id();
        Engine e = h.start("n1", c -> c, new V2());
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(bad).orElseThrow().status() == Status.FAILED
                && e.find(good).orElseThrow().status() == Status.DONE);
        assertThat(e.find(bad).orElseThrow().lastError()).contains("cannot be read as");
    }
}
