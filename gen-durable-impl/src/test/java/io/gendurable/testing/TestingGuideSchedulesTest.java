package io.gendurable.testing;

import io.gendurable.DurableFsm;
import io.gendurable.DurableSchedule;
import io.gendurable.Job;
import io.gendurable.Status;
import io.gendurable.StepContext;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/testing.md's schedules example: an hourly schedule under the kit, as a node's loop fires it. */
@GenDurableTest(fsms = TestingGuideSchedulesTest.HourlyReport.class)
class TestingGuideSchedulesTest {

    @DurableFsm(name = "hourly-report")
    @DurableSchedule(cron = "0 * * * *")
    public static class HourlyReport implements Job<Object> {
        @Override
        public Object perform(Object state, StepContext ctx) {
            return ctx.correlationKey().orElseThrow();
        }
    }

    @Test
    void an_hourly_schedule_fires_twice_in_two_hours(DurableTesting t) {
        // tag::schedules[]
        t.clock().advance(Duration.ofHours(2));   // an hourly schedule fires twice on the way
        List<Long> ids = t.fireDueSchedules();    // those two, and whatever is due now
        t.drain();                                // runs them
        // end::schedules[]
        assertThat(ids).hasSize(2);
        ids.forEach(id -> assertThat(t.instance(id).status()).isEqualTo(Status.DONE));
    }
}
