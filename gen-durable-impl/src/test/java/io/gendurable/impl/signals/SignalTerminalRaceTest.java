package io.gendurable.impl.signals;

import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A signal racing the flush that ends its target. The flush of {@code done} locks the row,
 * clears its inbox and commits; the delivery resolved the target as live from its snapshot, and
 * its inbox insert takes only a key-share lock on the target (compatible with the flush's lock),
 * so it did not wait: it stored the signal, then its wake found the row {@code done}. The caller
 * was told {@code DELIVERED}, no step ever read the signal, and it stayed in a finished
 * instance's inbox (found by the chaos suite: once in 2,827 deliveries). The delivery now locks
 * its target when it resolves it, so it queues behind the flush and finds no live target.
 */
@EngineTest
class SignalTerminalRaceTest {
    /** Parks for a signal that never needs to come. */
    public static class Parks implements Fsm<Map<String, Object>> {
        @Override
        public Outcome step(String step, Map<String, Object> s, StepContext ctx) {
            return Outcome.await(java.util.Set.of("never"), "end", s);
        }
    }

    @Test
    void a_signal_racing_the_transaction_that_ends_its_target_is_not_delivered_into_a_finished_inbox(EngineHarness h) throws Exception {
        Engine e = h.start("n1", c -> c.queues(Map.of()), new Parks());
        long x = e.insert(Parks.class, Map.of("k", 1)).id();
        try (Connection flush = h.dataSource().getConnection(); Statement s = flush.createStatement()) {
            flush.setAutoCommit(false);
            s.execute("SET search_path TO " + h.schema());
            // what a terminal flush does in its transaction: lock, end the row, clear the inbox
            s.execute("SELECT id FROM gen_durable WHERE id = " + x + " FOR NO KEY UPDATE");
            s.executeUpdate("UPDATE gen_durable SET status = 'done', updated_at = now() WHERE id = " + x);
            s.executeUpdate("DELETE FROM signals WHERE target_id = " + x);

            CompletableFuture<SignalResult> sent = CompletableFuture.supplyAsync(
                    () -> e.signal(SignalTarget.id(x), "nudge", Map.of()));
            await().atMost(Duration.ofSeconds(10)).until(() -> h.waitingOn(flush, "WITH target AS") == 1);
            flush.commit();
            assertThat(sent.get(10, TimeUnit.SECONDS)).isEqualTo(SignalResult.NO_TARGET);
        }
        assertThat(h.queryLong("SELECT count(*) FROM signals WHERE target_id = " + x)).isZero();
    }
}
