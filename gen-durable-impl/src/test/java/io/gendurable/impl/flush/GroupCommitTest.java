package io.gendurable.impl.flush;

import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Noop;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@EngineTest
class GroupCommitTest {
    @Test
    void many_concurrent_outcomes_commit_in_far_fewer_transactions_than_outcomes(EngineHarness h) {
        int n = 2000;
        h.insertBacklog(new Noop(), n);
        String commits = "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()";
        long before = h.queryLong(commits);

        Engine worker = h.start("worker", c -> c.queues(Map.of("default", 50)).prefetch(50), new Noop());
        h.awaitDone(n);

        long flushes = worker.metrics().flushes.sum();
        long outcomes = worker.metrics().flushedOutcomes.sum();
        System.out.printf("group commit: %d outcomes in %d flush transactions%n", outcomes, flushes);
        assertThat(outcomes).isEqualTo(n);
        assertThat(flushes).as("flush transactions for %d outcomes", n).isLessThan(n / 5);
        // Every transaction the database committed meanwhile, claims and heartbeats included.
        // pg_stat_database is updated asynchronously; wait for the counters to settle.
        await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ofMillis(600)).until(() -> h.queryLong(commits) > before);
        long transactions = h.queryLong(commits) - before;
        System.out.printf("group commit: %d database commits in all%n", transactions);
        assertThat(transactions).as("database commits for %d outcomes", n).isLessThan(n / 2);
    }
}
