package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.awaitility.Awaitility.await;

/**
 * A fill that finds a claim riding a flush leaves its request to that flush's end (issue 47,
 * item 3). Its failed attempt to take the claim flag and its setting of {@code leftToFlush} were
 * two steps: the ride could end and its flush's end read {@code leftToFlush} (still unset) in
 * between, so the request was lost and, with local pokes, the queue waited for its poll. The hook
 * runs exactly there: the ride ends and its flush's end runs. The fill now looks again after
 * setting the flag and asks for the fill itself.
 */
@EngineTest
class RideEndRaceTest {
    public record Item(int n) {
    }

    public static class Noop implements Fsm<Item> {
        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            return Outcome.done();
        }
    }

    @Test
    void a_ride_ending_between_the_failed_claim_and_the_flag_does_not_lose_the_fill(EngineHarness h) {
        Duration poll = Duration.ofSeconds(60);
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 2)).poll(poll, poll).startAtInsert(false), new Noop());
        Scheduler s = EngineInternals.schedulers(e).get(0);
        await().alias("the start's fill is over").atMost(Duration.ofSeconds(10)).until(() -> e.metrics().picks.sum() >= 1);
        long id = h.queryLong("INSERT INTO gen_durable (fsm, step, state) VALUES ('" + Noop.class.getName()
                + "', 'start', '{\"n\": 1}') RETURNING id");  // another node's row: no poke here
        s.inFlush.claimBusyHook = () -> {
            s.inFlush.claimBusyHook = null;
            s.inFlush.end();   // the ride's claim ends ...
            s.inFlush.flushEnded();       // ... and its flush's end finds no request
        };
        s.inFlush.beginForTest();    // a claim riding a flush is under way
        s.claimOnce();
        await().alias("the row ran (else: the 60 s poll)").atMost(Duration.ofSeconds(5))
                .until(() -> e.find(id).map(InstanceSnapshot::status).orElseThrow() == Status.DONE);
    }
}
