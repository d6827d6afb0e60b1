package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A slot reserved for a row claimed at its insert while a fill's claim is under way. The fill read
 * its demand (free slots plus prefetch) before the reservation took a slot, so its statement
 * claimed a row for that slot too: the node held one row beyond its concurrency plus prefetch,
 * a row other nodes could have run. (Found by a CI run of OperationsAcrossNodesTest, whose pause
 * test waits for exactly concurrency plus prefetch rows claimed.) A reservation now gives its slot
 * back when it finds a claim under way, and the row is inserted runnable for that claim or the next.
 */
@EngineTest
class ReserveDuringClaimTest {
    public record Item(int n) {
    }

    public static class Holds implements Fsm<Item> {
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public Outcome step(String step, Item s, StepContext ctx) throws InterruptedException {
            release.await(30, TimeUnit.SECONDS);
            return Outcome.done();
        }
    }

    @Test
    void an_insert_during_a_claim_does_not_make_the_node_hold_more_than_concurrency_plus_prefetch(EngineHarness h) {
        Duration poll = Duration.ofSeconds(60);
        Holds fsm = new Holds();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 1)).prefetch(3).minDemand(1).poll(poll, poll)
                .startAtInsert(true), fsm);
        try {
            Scheduler s = EngineInternals.schedulers(e).get(0);
            await().alias("the start's fill is over").atMost(Duration.ofSeconds(10)).until(() -> e.metrics().picks.sum() >= 1);
            for (int i = 0; i < 5; i++) {  // another node's rows: no poke here
                h.queryLong("INSERT INTO gen_durable (fsm, step, state) VALUES ('" + Holds.class.getName()
                        + "', 'start', '{\"n\": " + i + "}') RETURNING id");
            }
            s.demandReadHook = () -> {
                s.demandReadHook = null;
                e.insert(Holds.class, new Item(99));  // start-at-insert: wants the free slot the fill counted
            };
            s.fillOnce();
            await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                    .until(() -> h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'") >= 4);
            assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'"))
                    .as("rows this node holds: concurrency 1 + prefetch 3").isEqualTo(4);
            assertThat(s.inFlight() + s.buffered()).isEqualTo(4);
        } finally {
            fsm.release.countDown();
        }
    }
}
