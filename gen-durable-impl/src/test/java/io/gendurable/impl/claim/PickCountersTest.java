package io.gendurable.impl.claim;

import io.gendurable.Status;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Item;
import io.gendurable.impl.support.Fsms.Noop;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The claim counters a scale-out reading needs: {@code shortPicks} (a claim took fewer rows than
 * it asked for) and {@code emptyPicks} (none), here for the case that matters across nodes: the
 * one due row held locked by another transaction, which the claim skips ({@code SKIP LOCKED}).
 */
@EngineTest
class PickCountersTest {

    @Test
    void a_claim_that_skips_a_locked_row_counts_as_empty_and_one_that_gets_fewer_rows_than_asked_as_short(EngineHarness h)
            throws Exception {
        Engine web = h.start("web", c -> c.queues(java.util.Map.of()), new Noop());  // inserts, runs nothing
        long id = web.insert(Noop.class, new Item(1)).id();
        Engine e;
        try (Connection other = h.dataSource().getConnection()) {
            other.setAutoCommit(false);
            try (Statement s = other.createStatement()) {
                s.execute("SELECT 1 FROM " + h.schema() + ".gen_durable WHERE id = " + id + " FOR UPDATE");
            }
            e = h.start("n1", c -> c, new Noop());
            // the poll comes back every 50 to 200 ms, and skips the locked row every time
            await().atMost(Duration.ofSeconds(10)).until(() -> e.metrics().emptyPicks.sum() >= 2);
            assertThat(e.find(id).orElseThrow().status()).isEqualTo(Status.RUNNABLE);
            other.rollback();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        // one row for a demand of concurrency 4 plus prefetch: short, not empty
        assertThat(e.metrics().picked.sum()).isEqualTo(1);
        assertThat(e.metrics().shortPicks.sum()).isGreaterThan(e.metrics().emptyPicks.sum());
        assertThat(e.metrics().shortPicks.sum()).isLessThanOrEqualTo(e.metrics().picks.sum());
    }
}
