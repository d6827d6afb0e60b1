package io.gendurable.impl.flush;

import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@EngineTest
class FlushIsolationTest {
    public record Item(int n, boolean poison) {
    }

    public static class Finish implements Fsm<Item> {
        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            return Outcome.done(s);
        }
    }

    @Test
    void an_outcome_the_database_refuses_does_not_sink_the_others_of_its_flush(EngineHarness h) {
        Engine web = h.start("web", c -> c.queues(Map.of()), new Finish());
        // The database refuses one row's result: a trigger stands in for any row-level refusal.
        h.exec("""
                CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  IF NEW.result IS NOT NULL AND (NEW.result->>'poison')::boolean THEN
                    RAISE EXCEPTION 'poisoned result';
                  END IF;
                  RETURN NEW;
                END $$;
                CREATE TRIGGER refuse_poison BEFORE UPDATE ON gen_durable
                FOR EACH ROW EXECUTE FUNCTION refuse_poison();
                """);
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            batch.add(NewInstance.of(Finish.class, new Item(i, i == 7)));
        }
        List<Long> ids = web.insertAll(batch).stream().map(r -> r.id()).toList();
        // Wide batches: everything lands in few flushes, the poison among them.
        Engine worker = h.start("worker", c -> c.queues(Map.of("default", 40)).flushers(List.of(
                new EngineConfig.FlusherConfig(List.of("*"), 100, Duration.ofMillis(200)))), new Finish());
        await().atMost(Duration.ofSeconds(20)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 39);
        assertThat(worker.find(ids.get(7)).orElseThrow().status()).isEqualTo(Status.EXECUTING);
        assertThat(worker.metrics().flushErrors.sum()).isPositive();
    }
}
