package io.gendurable.impl.db;

import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.TwoSteps;
import io.gendurable.impl.support.StatementCounter;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hot path's statement budget, so a regression fails CI: a pick is one claim statement
 * (plus at most two batched loads when rows have signals or children), whatever the batch size;
 * a flush is a fixed handful of statements, whatever the number of outcomes; and on a busy queue
 * claims ride flush transactions, so they cost no commit of their own.
 */
@EngineTest
class StatementBudgetTest {
    @Test
    void picks_and_flushes_cost_a_bounded_number_of_statements_whatever_the_batch_size(EngineHarness h) {
        StatementCounter counter = h.countStatements();
        int n = 3000;
        h.insertBacklog(new TwoSteps(), n);
        Engine e = h.start("worker", c -> c.queues(Map.of("default", 64)).prefetch(64), new TwoSteps());
        h.awaitDone(n);

        long picks = e.metrics().picks.sum();
        long inFlush = e.metrics().picksInFlush.sum();
        long flushes = e.metrics().flushes.sum();
        int claims = counter.count("WITH RECURSIVE prio");
        int inboxLoads = counter.count("SELECT id, target_id");
        int childLoads = counter.count("SELECT id, parent_id");
        int flushUpdates = counter.count("WITH u AS");
        int consumes = counter.count("DELETE FROM");
        int limiter = counter.count("WITH wanted");
        System.out.printf("budget: %d steps, %d picks (%d claims, %d in flushes), %d flushes (%d updates, %d deletes)%n",
                2 * n, picks, claims, inFlush, flushes, flushUpdates, consumes);

        // One claim per pick (the metric counts picks that returned); no loads: nothing has signals or children.
        assertThat(claims).isBetween((int) picks, (int) picks + 5);
        assertThat(inboxLoads + childLoads).isZero();
        assertThat(limiter).isZero();
        // One guarded update per flush; terminal outcomes add one batched inbox clear, not one per row.
        assertThat(flushUpdates).isEqualTo((int) flushes);
        assertThat(consumes).isLessThanOrEqualTo((int) flushes);
        // A busy queue's claims ride its flushes (the claim is the flush transaction's first
        // statement): a share of the picks costs no commit of its own.
        assertThat(inFlush).as("claims inside flush transactions").isPositive();
        assertThat(picks - inFlush + flushes).as("transactions").isLessThan(picks + flushes);
        // Batching is real: far fewer picks and flushes than steps.
        assertThat(picks).isLessThan(2L * n / 4);
        assertThat(flushes).isLessThan(2L * n / 4);
    }
}
