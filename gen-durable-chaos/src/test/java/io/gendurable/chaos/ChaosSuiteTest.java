package io.gendurable.chaos;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos suite in CI: three worker JVMs, SIGKILLs, paused workers (SIGSTOP past the lease, one
 * of them woken into an undeploy), terminated backends, one PostgreSQL restart and one PostgreSQL
 * crash (kill -9 of the postmaster), then every invariant of docs/reliability.md.
 * {@code -Dchaos.minutes=20} makes it the long run; {@code -Dchaos.limiter=redis} runs it on the Redis
 * limiter and pokes, with Redis killed and restarted once and its connections killed every 9 s.
 */
class ChaosSuiteTest {

    @Test
    void workersKilledBackendsTerminatedAndTheServerRestartedLoseNothingAndCommitNothingTwice() throws Exception {
        double minutes = Double.parseDouble(System.getProperty("chaos.minutes", "0"));
        File dir = new File(System.getProperty("chaos.dir", "target/chaos"));
        long t0 = System.nanoTime();
        ChaosRun.Result r = ChaosRun.run(ChaosRun.Settings.of(minutes, dir));
        System.out.println(r.summary());
        assertThat(r.report().violations()).as(r.summary()).isEmpty();
        // the faults did happen (else the run proves nothing)
        assertThat(r.summary()).contains("PostgreSQL restarts=1");
        assertThat(r.summary()).doesNotContain("worker kills (SIGKILL)=0 ");
        assertThat(r.summary()).doesNotContain("PostgreSQL crashes (kill -9)=0 ");
        assertThat(r.summary()).doesNotContain("worker pauses (SIGSTOP)=0 ").doesNotContain("undeploys of a frozen node: 0;");
        assertThat(r.summary()).doesNotContain("woken by the nudge 0,").doesNotContain("by the await timeout 0;");
        if (ChaosRedis.enabled()) {
            assertThat(r.summary()).contains("Redis restarts (kill -9, no persistence)=1").contains("limiter: redis")
                    .doesNotContain("Redis connection drops=0 ");
        }
        if (minutes <= 0) {
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMinutes(4));
        }
    }
}
