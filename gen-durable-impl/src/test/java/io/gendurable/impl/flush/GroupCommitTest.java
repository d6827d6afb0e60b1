package io.gendurable.impl.flush;

import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.JdbcSpy;
import io.gendurable.impl.support.Fsms.Noop;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

@EngineTest
class GroupCommitTest {
    @Test
    void many_concurrent_outcomes_commit_in_far_fewer_transactions_than_outcomes(EngineHarness h) {
        int n = 2000;
        h.insertBacklog(new Noop(), n);
        LongAdder commits = new LongAdder();
        h.wrapDataSource(ds -> JdbcSpy.transactions(ds, commits));

        Engine worker = h.start("worker", c -> c.queues(Map.of("default", 50)).prefetch(50), new Noop());
        h.awaitDone(n);

        long flushes = worker.metrics().flushes.sum();
        long outcomes = worker.metrics().flushedOutcomes.sum();
        System.out.printf("group commit: %d outcomes in %d flush transactions%n", outcomes, flushes);
        assertThat(outcomes).isEqualTo(n);
        assertThat(flushes).as("flush transactions for %d outcomes", n).isLessThan(n / 5);
        // Every transaction the worker committed, claims and heartbeats included (counted on its
        // own connections: the database-wide pg_stat_database.xact_commit moves with other tests).
        long transactions = commits.sum();
        System.out.printf("group commit: %d transactions of the worker in all%n", transactions);
        assertThat(transactions).as("the counter sees the worker's transactions").isGreaterThanOrEqualTo(flushes);
        assertThat(transactions).as("database commits for %d outcomes", n).isLessThan(n / 2);
    }
}
