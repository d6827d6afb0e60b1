package io.gendurable.impl.schedule;

import io.gendurable.DurableFsm;
import io.gendurable.DurableOperations;
import io.gendurable.DurableSchedule;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Job;
import io.gendurable.MisfirePolicy;
import io.gendurable.ScheduleDefinition;
import io.gendurable.ScheduleStatus;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.support.OwnSchema;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Recurring schedules through the test kit and its settable clock: one instance per fire time,
 * misfire policies, daylight-saving changes, several nodes racing for the same fire times, and
 * the operator's pause, resume, trigger, define and remove.
 */
class SchedulesTest {
    /** @param label what the fired instance carries */
    public record Report(String label) {
    }

    @DurableFsm(name = "report-minutely", queue = "reports")
    @DurableSchedule(name = "minutely", cron = "* * * * *", state = "{\"label\": \"tick\"}")
    public static class Minutely implements Job<Report> {
        @Override
        public Object perform(Report r, StepContext ctx) {
            return r.label() + "@" + ctx.correlationKey().orElse("?");
        }
    }

    @DurableFsm(name = "report-catch-up", queue = "reports")
    @DurableSchedule(name = "catch-up", cron = "* * * * *", misfire = MisfirePolicy.CATCH_UP, maxCatchUp = 3)
    public static class CatchUp implements Job<Report> {
        @Override
        public Object perform(Report r, StepContext ctx) {
            return "ok";
        }
    }

    @DurableFsm(name = "report-nightly", queue = "reports")
    @DurableSchedule(name = "nightly-berlin", cron = "30 2 * * *", zone = "Europe/Berlin")
    public static class NightlyBerlin implements Job<Report> {
        @Override
        public Object perform(Report r, StepContext ctx) {
            return "ok";
        }
    }

    @DurableFsm(name = "report-twice", queue = "reports")
    @DurableSchedule(name = "hourly", cron = "0 * * * *")
    @DurableSchedule(name = "daily", cron = "0 6 * * *")
    public static class Twice implements Job<Report> {
        @Override
        public Object perform(Report r, StepContext ctx) {
            return "ok";
        }
    }

    @DurableFsm(name = "plain-report", queue = "reports")
    public static class Plain implements Job<Report> {
        @Override
        public Object perform(Report r, StepContext ctx) {
            return r.label();
        }
    }

    @DurableFsm(name = "bad-cron")
    @DurableSchedule(cron = "61 * * * *")
    public static class BadCron implements Job<Report> {
        @Override
        public Object perform(Report r, StepContext ctx) {
            return null;
        }
    }

    @DurableFsm(name = "bad-zone")
    @DurableSchedule(cron = "0 * * * *", zone = "Mars/Olympus")
    public static class BadZone implements Job<Report> {
        @Override
        public Object perform(Report r, StepContext ctx) {
            return null;
        }
    }

    @DurableFsm(name = "bad-state")
    @DurableSchedule(cron = "0 * * * *", state = "[1, 2]")
    public static class BadState implements Job<Report> {
        @Override
        public Object perform(Report r, StepContext ctx) {
            return null;
        }
    }

    @DurableFsm(name = "clash")
    @DurableSchedule(name = "minutely", cron = "0 * * * *")
    public static class Clash implements Job<Report> {
        @Override
        public Object perform(Report r, StepContext ctx) {
            return null;
        }
    }

    @RegisterExtension
    final OwnSchema own = OwnSchema.perTest("schedules");

    private final List<DurableTesting> nodes = new ArrayList<>();

    @AfterEach
    void down() {
        nodes.forEach(DurableTesting::close);
    }

    private DurableTesting node(TestClock clock, Class<?>... fsms) {
        return node(clock, "PT1M", fsms);
    }

    private DurableTesting node(TestClock clock, String misfireThreshold, Class<?>... fsms) {
        DurableTesting t = DurableTesting.builder().dataSource(own.dataSource()).schema(own.schema()).fsms(fsms)
                .clock(clock).config("gendurable.schedules.misfire-threshold", misfireThreshold)
                .config("gendurable.queues", "default:1,reports:1")
                .dropSchemaOnClose(false).build();
        // these tests move the clock as if their nodes were down meanwhile, then tick at one instant
        io.gendurable.testing.KitAccess.detachFromClock(t);
        nodes.add(t);
        return t;
    }

    private static List<String> keys(DurableTesting t, List<Long> ids) {
        return ids.stream().map(t::instance).map(s -> s.correlationKey()).toList();
    }

    @Test
    void one_instance_per_fire_time_and_none_before_it() {
        // tag::kit[]
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:30Z"));
        DurableTesting t = node(clock, Minutely.class);  // DurableTesting.builder()…clock(clock).build()

        assertThat(t.fireDueSchedules()).as("nothing is due before the first fire time").isEmpty();
        clock.advanceTo(Instant.parse("2026-01-01T00:01:00Z"));
        List<Long> fired = t.fireDueSchedules();
        assertThat(keys(t, fired)).containsExactly("schedule:minutely:2026-01-01T00:01:00Z");
        assertThat(t.fireDueSchedules()).as("a fire time fires once").isEmpty();

        t.drain();
        assertThat(t.assertDone(fired.get(0)).as(String.class)).isEqualTo("tick@schedule:minutely:2026-01-01T00:01:00Z");
        // end::kit[]
        ScheduleStatus s = t.operations().schedules().get(0);
        assertThat(s.name()).isEqualTo("minutely");
        assertThat(s.origin()).isEqualTo("annotation");
        assertThat(s.lastFireAt()).isEqualTo(Instant.parse("2026-01-01T00:01:00Z"));
        assertThat(s.lastInstanceId()).isEqualTo(fired.get(0));
        assertThat(s.nextFireAt()).isEqualTo(Instant.parse("2026-01-01T00:02:00Z"));
    }

    @Test
    void skip_drops_fire_times_missed_by_more_than_the_threshold() {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:30Z"));
        DurableTesting t = node(clock, Minutely.class);
        clock.advanceTo(Instant.parse("2026-01-01T00:11:00Z"));  // 00:01 … 00:11 due; cutoff 00:10

        assertThat(keys(t, t.fireDueSchedules())).containsExactly(
                "schedule:minutely:2026-01-01T00:10:00Z", "schedule:minutely:2026-01-01T00:11:00Z");
        assertThat(t.operations().schedules().get(0).nextFireAt()).isEqualTo(Instant.parse("2026-01-01T00:12:00Z"));
    }

    @Test
    void catch_up_inserts_the_latest_missed_fire_times_up_to_its_maximum() {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:30Z"));
        DurableTesting t = node(clock, CatchUp.class);
        clock.advanceTo(Instant.parse("2026-01-01T00:11:00Z"));

        assertThat(keys(t, t.fireDueSchedules())).containsExactly(
                "schedule:catch-up:2026-01-01T00:07:00Z", "schedule:catch-up:2026-01-01T00:08:00Z",
                "schedule:catch-up:2026-01-01T00:09:00Z",
                "schedule:catch-up:2026-01-01T00:10:00Z", "schedule:catch-up:2026-01-01T00:11:00Z");
    }

    @Test
    void daylight_saving_changes_skip_the_missing_local_time_and_fire_a_repeated_daily_one_once() {
        TestClock clock = new TestClock(Instant.parse("2026-03-27T12:00:00Z"));
        DurableTesting t = node(clock, "PT2H", NightlyBerlin.class);
        List<String> spring = new ArrayList<>();
        for (int h = 0; h < 4 * 24; h++) {  // 27 March noon to 31 March noon, hour by hour
            clock.advance(Duration.ofHours(1));
            spring.addAll(keys(t, t.fireDueSchedules()));
        }
        assertThat(spring).as("02:30 does not exist in Berlin on 29 March 2026").containsExactly(
                "schedule:nightly-berlin:2026-03-28T01:30:00Z",
                "schedule:nightly-berlin:2026-03-30T00:30:00Z",
                "schedule:nightly-berlin:2026-03-31T00:30:00Z");

        clock.advanceTo(Instant.parse("2026-10-24T12:00:00Z"));
        t.fireDueSchedules();  // the missed nights: skipped
        List<String> autumn = new ArrayList<>();
        for (int h = 0; h < 2 * 24; h++) {
            clock.advance(Duration.ofHours(1));
            autumn.addAll(keys(t, t.fireDueSchedules()));
        }
        assertThat(autumn).as("02:30 happens twice in Berlin on 25 October 2026: a daily expression fires at the first")
                .containsExactly(
                        "schedule:nightly-berlin:2026-10-25T00:30:00Z",
                        "schedule:nightly-berlin:2026-10-26T01:30:00Z");
    }

    @Test
    void several_nodes_racing_insert_each_fire_time_exactly_once() throws Exception {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:30Z"));
        List<DurableTesting> three = List.of(node(clock, Minutely.class), node(clock, Minutely.class),
                node(clock, Minutely.class));
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Long> all = new ArrayList<>();
            for (int round = 0; round < 20; round++) {
                clock.advance(Duration.ofMinutes(1));
                CyclicBarrier start = new CyclicBarrier(3);
                List<Future<List<Long>>> answers = new ArrayList<>();
                for (DurableTesting n : three) {
                    answers.add(pool.submit(() -> {
                        start.await();
                        return n.fireDueSchedules();
                    }));
                }
                for (Future<List<Long>> a : answers) {
                    all.addAll(a.get());
                }
            }
            DurableTesting t = three.get(0);
            List<String> fired = keys(t, all);
            assertThat(fired).hasSize(20).doesNotHaveDuplicates();
            assertThat(t.instances(Minutely.class)).hasSize(20);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void a_restart_keeps_the_next_fire_time_so_a_due_one_is_not_skipped() {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:30Z"));
        node(clock, Minutely.class);
        clock.advanceTo(Instant.parse("2026-01-01T00:01:20Z"));
        DurableTesting restarted = node(clock, Minutely.class);  // seeds the same definition again

        assertThat(keys(restarted, restarted.fireDueSchedules())).containsExactly("schedule:minutely:2026-01-01T00:01:00Z");
    }

    @Test
    void pause_resume_and_trigger_through_the_operations_api() {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:30Z"));
        DurableTesting t = node(clock, Minutely.class);
        DurableOperations ops = t.operations();

        ScheduleStatus paused = ops.pauseSchedule("minutely", "maintenance");
        assertThat(paused.paused()).isTrue();
        assertThat(paused.reason()).isEqualTo("maintenance");
        clock.advance(Duration.ofMinutes(5));
        assertThat(t.fireDueSchedules()).as("a paused schedule does not fire").isEmpty();

        long manual = ops.triggerSchedule("minutely").id();
        assertThat(t.instance(manual).correlationKey()).isEqualTo("schedule:minutely:manual:2026-01-01T00:05:30Z");
        assertThat(ops.schedules().get(0).nextFireAt()).as("a trigger does not move the schedule")
                .isEqualTo(Instant.parse("2026-01-01T00:01:00Z"));

        assertThat(ops.resumeSchedule("minutely").paused()).isFalse();
        assertThat(keys(t, t.fireDueSchedules())).as("the pause's missed fire times follow SKIP")
                .containsExactly("schedule:minutely:2026-01-01T00:05:00Z");

        assertThatThrownBy(() -> ops.pauseSchedule("no-such", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no schedule is named 'no-such'").hasMessageContaining("minutely");
        assertThatThrownBy(() -> ops.triggerSchedule(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
    }

    @Test
    void a_schedule_defined_at_run_time_fires_and_can_be_redefined_and_removed() {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:30Z"));
        DurableTesting t = node(clock, Plain.class);
        DurableOperations ops = t.operations();

        ScheduleStatus s = ops.defineSchedule(ScheduleDefinition.of("quarterly", Plain.class, "*/15 * * * *",
                new Report("api")));
        assertThat(s.origin()).isEqualTo("api");
        assertThat(s.nextFireAt()).isEqualTo(Instant.parse("2026-01-01T00:15:00Z"));
        clock.advanceTo(Instant.parse("2026-01-01T00:15:00Z"));
        List<Long> fired = t.fireDueSchedules();
        t.drain();
        assertThat(t.assertDone(fired.get(0)).as(String.class)).isEqualTo("api");

        ScheduleStatus again = ops.defineSchedule(ScheduleDefinition.of("quarterly", Plain.class, "0 9 * * *",
                new Report("api")).inZone(ZoneId.of("Europe/Berlin")));
        assertThat(again.nextFireAt()).as("a new expression starts from its own first fire time")
                .isEqualTo(Instant.parse("2026-01-01T08:00:00Z"));
        assertThat(ops.removeSchedule("quarterly")).isTrue();
        assertThat(ops.removeSchedule("quarterly")).isFalse();
        assertThat(ops.schedules()).isEmpty();

        assertThatThrownBy(() -> ops.defineSchedule(ScheduleDefinition.of("x", Minutely.class, "* * * * *", new Report("x"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not registered on this node");
        assertThatThrownBy(() -> ops.defineSchedule(ScheduleDefinition.of("x", Plain.class, "every minute", new Report("x"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cron must be 5 fields");
        assertThatThrownBy(() -> ScheduleDefinition.of("x", Plain.class, "* * * * *", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("state must not be null");
    }

    @Test
    void a_class_may_declare_several_schedules_and_one_no_longer_declared_is_removed_at_start() {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:30Z"));
        DurableTesting t = node(clock, Twice.class);
        assertThat(t.operations().schedules()).extracting(ScheduleStatus::name).containsExactly("daily", "hourly");
        own.sql("UPDATE gen_durable_schedules SET name = 'retired', origin = 'annotation' WHERE name = 'daily'");

        DurableTesting next = node(clock, Twice.class);
        assertThat(next.operations().schedules()).extracting(ScheduleStatus::name).containsExactly("daily", "hourly");
    }

    @Test
    void an_invalid_declaration_fails_the_build_naming_the_class_and_the_field() {
        TestClock clock = new TestClock();
        assertThatThrownBy(() -> node(clock, BadCron.class)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(BadCron.class.getName()).hasMessageContaining("cron must be 5 fields");
        assertThatThrownBy(() -> node(clock, BadZone.class)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(BadZone.class.getName()).hasMessageContaining("zone must be a time-zone id");
        assertThatThrownBy(() -> node(clock, BadState.class)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(BadState.class.getName()).hasMessageContaining("state must be JSON that reads as");
        assertThatThrownBy(() -> node(clock, Minutely.class, Clash.class)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(Minutely.class.getName()).hasMessageContaining(Clash.class.getName())
                .hasMessageContaining("'minutely'");
    }

    @Test
    void a_fired_instance_is_an_ordinary_runnable_instance_in_the_fsm_queue() {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:59Z"));
        DurableTesting t = node(clock, Minutely.class);
        clock.advance(Duration.ofSeconds(1));
        InstanceSnapshot s = t.instance(t.fireDueSchedules().get(0));
        assertThat(s.status()).isEqualTo(Status.RUNNABLE);
        assertThat(s.queue()).isEqualTo("reports");
        assertThat(s.fsm()).isEqualTo("report-minutely");
    }

    /**
     * One schedule that cannot fire does not stop the others. The firer fires the due schedules
     * of a tick in one transaction; a schedule whose stored state no longer reads into its FSM's
     * state type (here the row's state is rewritten to a JSON array; in production, a deployment
     * changed the type under a run-time definition) threw, the whole batch rolled back, the broken
     * row sorted first again at the next tick, and no schedule on the node fired until someone
     * removed it. Each schedule now fires under a savepoint: the broken one is rolled back alone,
     * skipped, counted ({@code gendurable.schedules.poisoned}) and listed as poisoned; the others
     * fire on time.
     */
    @Test
    void a_schedule_that_cannot_fire_is_isolated_and_the_others_fire_on_time() {
        TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:30Z"));
        DurableTesting t = node(clock, Minutely.class, Plain.class);
        t.operations().defineSchedule(ScheduleDefinition.of("broken", Plain.class, "* * * * *", new Report("api")));
        own.sql("UPDATE " + own.schema() + ".gen_durable_schedules SET state = '[1, 2]' WHERE name = 'broken'");
        clock.advanceTo(Instant.parse("2026-01-01T00:01:00Z"));

        List<Long> fired = t.fireDueSchedules();

        assertThat(keys(t, fired)).containsExactly("schedule:minutely:2026-01-01T00:01:00Z");
        io.gendurable.impl.schedule.Schedules schedules = io.gendurable.impl.engine.EngineInternals.schedules(
                io.gendurable.impl.support.Kit.engine(t));
        assertThat(schedules.firer().poisoned()).containsOnlyKeys("broken");
        assertThat(io.gendurable.impl.support.Kit.engine(t).metrics().schedulesPoisoned.sum()).isEqualTo(1);
        io.gendurable.impl.health.EngineHealth.Check ready = io.gendurable.impl.support.Kit.engine(t).health().readiness();
        assertThat(ready.data()).as("a signal in the health data").containsKey("schedule broken");
        assertThat(ready.data().get("schedule broken")).startsWith("cannot fire: ");
        assertThat(t.operations().schedules()).as("the operations API (and the console) show it")
                .anySatisfy(s -> assertThat(s.name().equals("broken") && s.cannotFire() != null).isTrue())
                .allSatisfy(s -> assertThat(s.cannotFire() == null).isEqualTo(!s.name().equals("broken")));

        clock.advanceTo(Instant.parse("2026-01-01T00:02:00Z"));
        assertThat(keys(t, t.fireDueSchedules())).as("the next tick too").containsExactly("schedule:minutely:2026-01-01T00:02:00Z");
        assertThat(io.gendurable.impl.support.Kit.engine(t).metrics().schedulesPoisoned.sum()).isEqualTo(2);
    }
}
