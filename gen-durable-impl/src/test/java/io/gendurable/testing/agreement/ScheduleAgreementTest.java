package io.gendurable.testing.agreement;

import io.gendurable.DurableFsm;
import io.gendurable.DurableSchedule;
import io.gendurable.FsmNames;
import io.gendurable.InsertOptions;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Job;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static io.gendurable.testing.agreement.Kits.config;
import static io.gendurable.testing.agreement.Kits.kit;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An hourly schedule over two hours: a node's schedules loop fires it at each fire time the clock
 * passes (twice). The kit fires it as that loop would for the clock's path: when a drain's jump
 * passes a fire time, and when the test moved the clock itself, at {@code fireDueSchedules()} or
 * the next drain (each fire time as of itself, none counted as missed).
 */
class ScheduleAgreementTest {

    @DurableFsm(name = "agree-hourly")
    @DurableSchedule(cron = "0 * * * *", state = "\"tick\"")
    public static class Hourly implements Job<String> {
        @Override
        public Object perform(String s, StepContext ctx) {
            return ctx.correlationKey().orElseThrow();
        }
    }

    /** A job with nothing to do, scheduled by the test. */
    @DurableFsm(name = "agree-later")
    public static class Later implements Job<String> {
        @Override
        public Object perform(String s, StepContext ctx) {
            return s;
        }
    }

    /** Seven minutes past an hour, in the future: two hours from it hold exactly two fire times. */
    private static Instant start() {
        return Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofMinutes(67));
    }

    private static List<String> fired(List<InstanceSnapshot> instances) {
        return instances.stream().map(s -> s.status() + " " + s.correlationKey()).sorted().toList();
    }

    private static List<String> onNode(Instant start, boolean withLaterJob) {
        try (Production p = new Production("agree-schedule", new TestClock(start), UnaryOperator.identity(),
                new Hourly(), new Later())) {
            if (withLaterJob) {
                p.engine.insert(Later.class, "x", InsertOptions.builder().scheduleAt(start.plus(Duration.ofHours(2))).build());
            }
            p.runUntil(start.plus(Duration.ofHours(2)), Duration.ofHours(2));
            return fired(p.instances(FsmNames.nameOf(Hourly.class)));
        }
    }

    @Test
    void a_drain_whose_jump_passes_fire_times_fires_the_schedule_at_each() {
        Instant start = start();
        List<String> node = onNode(start, true);
        assertThat(node).as("on a node").hasSize(2).allMatch(s -> s.startsWith(Status.DONE + " schedule:agree-hourly:"));

        try (DurableTesting t = kit(new TestClock(start), config(), new Hourly(), new Later())) {
            t.durable().insert(Later.class, "x", InsertOptions.builder().scheduleAt(start.plus(Duration.ofHours(2))).build());
            t.drain();
            assertThat(fired(t.instances(Hourly.class))).as("under the kit").isEqualTo(node);
        }
    }

    @Test
    void moving_the_clock_past_fire_times_fires_each_as_the_loop_would_have() {
        Instant start = start();
        List<String> node = onNode(start, false);

        try (DurableTesting t = kit(new TestClock(start), config(), new Hourly(), new Later())) {
            t.clock().advance(Duration.ofHours(2));
            assertThat(t.fireDueSchedules()).as("inserted by fireDueSchedules").hasSize(2);
            t.drain();
            assertThat(fired(t.instances(Hourly.class))).as("under the kit").isEqualTo(node);
        }
    }

    @Test
    void a_schedule_paused_while_time_passes_skips_the_missed_fire_times_at_its_resume() {
        Instant start = start();
        List<String> node;
        try (Production p = new Production("agree-schedule-pause", new TestClock(start), UnaryOperator.identity(),
                new Hourly())) {
            p.engine.operations().pauseSchedule("agree-hourly", "maintenance");
            p.runUntil(start.plus(Duration.ofHours(3)), Duration.ofHours(3));
            p.engine.operations().resumeSchedule("agree-hourly");
            p.runUntil(start.plus(Duration.ofHours(4)), Duration.ofHours(4));
            node = fired(p.instances(FsmNames.nameOf(Hourly.class)));
        }
        assertThat(node).as("on a node: SKIP drops the three missed, the next fires").hasSize(1);

        try (DurableTesting t = kit(new TestClock(start), config(), new Hourly())) {
            t.operations().pauseSchedule("agree-hourly", "maintenance");
            t.clock().advance(Duration.ofHours(3));
            t.operations().resumeSchedule("agree-hourly");
            t.clock().advance(Duration.ofHours(1));
            t.drain();
            assertThat(fired(t.instances(Hourly.class))).as("under the kit").isEqualTo(node);
        }
    }

    @Test
    void a_drain_after_the_test_moved_the_clock_fires_the_passed_fire_times_too() {
        Instant start = start();
        try (DurableTesting t = kit(new TestClock(start), config(), new Hourly())) {
            t.clock().advance(Duration.ofHours(2));
            t.drain();
            assertThat(t.instances(Hourly.class)).extracting(InstanceSnapshot::status).containsExactly(Status.DONE, Status.DONE);
        }
    }
}
