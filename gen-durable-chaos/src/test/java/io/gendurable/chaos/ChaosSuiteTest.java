package io.gendurable.chaos;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos suite in CI: three worker JVMs, SIGKILLs, terminated backends and one PostgreSQL
 * restart, then every invariant of docs/reliability.md. {@code -Dchaos.minutes=20} makes it the
 * long run.
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
        if (minutes <= 0) {
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMinutes(5));
        }
    }
}
