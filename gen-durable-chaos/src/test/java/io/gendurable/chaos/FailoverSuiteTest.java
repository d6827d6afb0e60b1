package io.gendurable.chaos;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.File;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failover fault on pg_auto_failover (a primary and a synchronous standby, started here): the
 * primary node is killed under the chaos workload, the standby promoted, the engine resumes on it
 * by itself, and every invariant of the chaos suite holds. Skipped where pg_auto_failover is not
 * installed ({@code .ci/run} installs it).
 */
class FailoverSuiteTest {

    @Test
    void thePrimaryLostUnderTheWorkloadLosesNothingAndCommitsNothingTwice() throws Exception {
        String why = FailoverCluster.unavailable();
        Assumptions.assumeTrue(why == null, why);
        File dir = new File(System.getProperty("chaos.dir", "target/chaos"), "failover");
        int runs = Integer.getInteger("failover.runs", 1);
        for (int i = 0; i < runs; i++) {
            FailoverRun.Result r = FailoverRun.run(FailoverRun.Settings.of(
                    FailoverRun.Shape.valueOf(System.getProperty("failover.shape", "NODE_LOST")), dir)
                    .withUrlParameters(System.getProperty("failover.url-parameters", FailoverRun.Settings.URL_PARAMETERS))
                    .withThawAfter(java.time.Duration.ofSeconds(Long.getLong("failover.thaw-after-seconds", 5))));
            System.out.println(r.summary());
            assertThat(r.report().violations()).as(r.summary()).isEmpty();
            FailoverRun.Outage o = r.outage();
            // visible: readiness DOWN while the database is away, UP again after
            assertThat(o.everyWorkerDown()).as(r.summary()).isTrue();
            assertThat(o.everyWorkerUpAfter()).as(r.summary()).isTrue();
            // no busy loop: at most 10 log lines a second per worker while it is away
            assertThat(o.logLines()).as(r.summary()).isLessThanOrEqualTo((int) (10 * o.seconds() * FailoverRun.WORKERS) + 10);
            // no thread left behind by the outage (a step or loop thread stuck on the dead primary)
            assertThat(o.threadsAtEnd()).as(r.summary()).isLessThanOrEqualTo(o.threadsBefore() + 10);
            // the outcome committed first after the fault went to the new primary, once it was writable
            assertThat(r.firstCommitMillis()).as(r.summary()).isGreaterThanOrEqualTo(r.promotedMillis() - 1_000);
        }
    }
}
