package io.gendurable.impl.nodes;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.FsmRegistration;
import io.gendurable.InsertOptions;
import io.gendurable.Job;
import io.gendurable.NewInstance;
import io.gendurable.NodeStatus;
import io.gendurable.OperationsSummary;
import io.gendurable.Outcome;
import io.gendurable.QueueAlert;
import io.gendurable.StepContext;
import io.gendurable.StepTiming;
import io.gendurable.ThroughputPoint;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The node beacons: what each engine writes, how the rows age, and the summary's alerts that read them. */
@EngineTest
class NodesTest {
    /** Holds every step until released. */
    @DurableFsm(name = "holds", version = 2, queue = "default")
    public static class Holds implements Fsm<Fsms.Item> {
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch entered;

        Holds(int expected) {
            this.entered = new CountDownLatch(expected);
        }

        @Override
        public Outcome step(String step, Fsms.Item s, StepContext ctx) throws Exception {
            entered.countDown();
            release.await(30, TimeUnit.SECONDS);
            return Outcome.done();
        }
    }

    /** A job in queue "mail". */
    @DurableFsm(name = "mailer", queue = "mail")
    public static class Mailer implements Job<Fsms.Item> {
        @Override
        public Object perform(Fsms.Item args, StepContext ctx) {
            return null;
        }
    }

    /** Even items finish, odd ones fail; each step takes 1 to 3 ms. */
    @DurableFsm(name = "evens")
    public static class Evens implements Fsm<Fsms.Item> {
        @Override
        public Outcome step(String step, Fsms.Item s, StepContext ctx) throws Exception {
            Thread.sleep(1 + s.n() % 3);
            return s.n() % 2 == 0 ? Outcome.done() : Outcome.stop("odd: " + s.n());
        }
    }

    EngineHarness h;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
    }

    private static NodeStatus node(Engine e, String id) {
        return e.operations().nodes().stream().filter(n -> n.node().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no node " + id + " in " + e.operations().nodes()));
    }

    @Test
    void the_beacon_lists_fsms_queues_limits_and_in_flight_and_refreshes_its_row() throws Exception {
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));  // as stored: no rounding
        Holds holds = new Holds(2);
        LimitsConfig limits = new LimitsConfig(Map.of("psp", new LimitsConfig.RateLimit("psp", 10, Duration.ofSeconds(1), 10, 1)),
                Map.of("account", new LimitsConfig.Gate("account", 2, 1)));
        Engine e = h.start("host-1", c -> c.queues(Map.of("default", 3, "mail", 1)).limits(limits), clock, holds, new Mailer());

        NodeStatus first = node(e, "host-1");
        assertThat(first.live()).isTrue();
        assertThat(first.fsms()).containsExactly(new FsmRegistration("holds", 2, "default", FsmRegistration.Kind.FSM),
                new FsmRegistration("mailer", 1, "mail", FsmRegistration.Kind.JOB));
        assertThat(first.queues()).containsExactlyInAnyOrder("default", "mail");
        assertThat(first.rateLimits()).containsExactly("psp");
        assertThat(first.gates()).containsExactly("account");
        assertThat(first.inFlight()).containsEntry("default", 0).containsEntry("mail", 0);
        assertThat(first.seenAt()).isEqualTo(clock.instant());

        e.insert(Holds.class, new Fsms.Item(1));
        e.insert(Holds.class, new Fsms.Item(2));
        assertThat(holds.entered.await(10, TimeUnit.SECONDS)).isTrue();
        clock.advance(Duration.ofSeconds(7));
        EngineInternals.beacon(e).beat();

        NodeStatus second = node(e, "host-1");
        assertThat(second.inFlight()).containsEntry("default", 2).containsEntry("mail", 0);
        assertThat(second.seenAt()).isEqualTo(first.seenAt().plusSeconds(7));
        assertThat(second.startedAt()).isEqualTo(first.startedAt());
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable_nodes")).isEqualTo(1);
        holds.release.countDown();
    }

    @Test
    void throughput_counts_done_and_failed_per_queue_and_timings_are_ordered_percentiles() {
        Engine e = h.start("worker", c -> c.queues(Map.of("default", 4)), new Evens());
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(new NewInstance("evens", new Fsms.Item(i), InsertOptions.defaults()));
        }
        e.insertAll(batch);
        await().atMost(Duration.ofSeconds(30)).until(() -> h.queryLong(
                "SELECT count(*) FROM gen_durable WHERE status IN ('done', 'failed')") == 10);

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            EngineInternals.beacon(e).beat();
            List<ThroughputPoint> points = node(e, "worker").throughput();
            assertThat(points).allSatisfy(p -> {
                assertThat(p.queue()).isEqualTo("default");
                assertThat(p.minute().getEpochSecond() % 60).isZero();
            });
            assertThat(points.stream().mapToLong(ThroughputPoint::completed).sum()).isEqualTo(5);
            assertThat(points.stream().mapToLong(ThroughputPoint::failed).sum()).isEqualTo(5);
        });
        NodeStatus n = node(e, "worker");
        assertThat(n.stepTimings()).hasSize(1);
        StepTiming t = n.stepTimings().get(0);
        assertThat(t.fsm()).isEqualTo("evens");
        assertThat(t.step()).isEqualTo("start");
        assertThat(t.count()).isEqualTo(10);
        assertThat(t.p50()).isGreaterThanOrEqualTo(Duration.ofMillis(1));
        assertThat(t.p50()).isLessThanOrEqualTo(t.p90());
        assertThat(t.p90()).isLessThanOrEqualTo(t.p99());
        assertThat(t.p99()).isLessThanOrEqualTo(t.max());
        assertThat(t.max()).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void a_clean_stop_deletes_the_row_and_a_silent_node_is_not_live_then_pruned_after_the_retention() {
        TestClock clock = new TestClock(Instant.now());
        Engine a = h.start("a", c -> c.queues(Map.of("default", 1)), clock, new Fsms.Noop());
        Engine b = h.start("b", c -> c.queues(Map.of("other", 1)), clock, new Fsms.Noop());
        assertThat(a.operations().nodes()).extracting(NodeStatus::node).containsExactly("a", "b");

        b.stop();
        assertThat(a.operations().nodes()).extracting(NodeStatus::node).containsExactly("a");

        // a node that died without a stop: its last beacon, 40 s old (three 10 s intervals are 30 s)
        h.exec("INSERT INTO gen_durable_nodes (node, started_at, seen_at, info) VALUES ('ghost', now(), '"
                + clock.instant().minusSeconds(40) + "', '{\"interval\":\"PT10S\",\"queues\":[\"default\"]}')");
        NodeStatus ghost = node(a, "ghost");
        assertThat(ghost.live()).isFalse();
        assertThat(ghost.queues()).containsExactly("default");
        assertThat(node(a, "a").live()).isTrue();

        clock.advance(Duration.ofMinutes(59));
        EngineInternals.beacon(a).beat();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable_nodes WHERE node = 'ghost'")).as("within the hour").isEqualTo(1);
        clock.advance(Duration.ofMinutes(1));
        EngineInternals.beacon(a).beat();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable_nodes WHERE node = 'ghost'")).as("past the retention").isZero();
        assertThat(a.operations().nodes()).extracting(NodeStatus::node).containsExactly("a");
    }

    @Test
    void alerts_name_a_queue_no_live_node_serves_and_a_rate_limit_no_live_node_configures() {
        LimitsConfig psp = new LimitsConfig(Map.of("psp", new LimitsConfig.RateLimit("psp", 10, Duration.ofSeconds(1), 10, 1)),
                Map.of());
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 2)).limits(psp), new Fsms.Noop());
        String fsm = io.gendurable.FsmNames.nameOf(Fsms.Noop.class);
        InsertOptions later = InsertOptions.builder().scheduleIn(Duration.ofHours(1)).build();
        e.insert(new NewInstance(fsm, new Fsms.Item(1), later));
        e.insert(new NewInstance(fsm, new Fsms.Item(2), InsertOptions.builder().scheduleIn(Duration.ofHours(1))
                .rateLimit("psp", "acme").build()));
        assertThat(e.operations().summary().alerts()).as("served queue, configured limit").isEmpty();

        e.insert(new NewInstance(fsm, new Fsms.Item(3), InsertOptions.builder().scheduleIn(Duration.ofHours(1))
                .rateLimit("nope", "acme").build()));
        e.insert(new NewInstance(fsm, new Fsms.Item(4), InsertOptions.builder().scheduleIn(Duration.ofHours(1))
                .queue("orphans").build()));
        OperationsSummary s = e.operations().summary();
        assertThat(s.alerts()).extracting(QueueAlert::queue, QueueAlert::kind).containsExactly(
                org.assertj.core.groups.Tuple.tuple("default", QueueAlert.Kind.UNKNOWN_RATE_LIMIT),
                org.assertj.core.groups.Tuple.tuple("orphans", QueueAlert.Kind.NO_NODE_SERVES));
        assertThat(s.alerts().get(0).detail()).startsWith("1 runnable instance carries rate limit 'nope',");
        assertThat(s.alerts().get(1).detail()).startsWith("1 runnable instance; no live node claims from queue orphans");

        // the age reads as an operator would write it, and the count agrees with its noun
        h.exec("UPDATE gen_durable SET eligible_at = now() - interval '95 seconds' WHERE queue = 'orphans'");
        e.insert(new NewInstance(fsm, new Fsms.Item(5), InsertOptions.builder().queue("orphans").build()));
        assertThat(e.operations().summary().alerts().get(1).detail())
                .matches("2 runnable instances, the oldest due for 1 min 3[4-9] s; no live node claims from queue orphans .*");

        // a node that serves orphans and configures nope, but is no longer live, does not count
        h.exec("INSERT INTO gen_durable_nodes (node, started_at, seen_at, info) VALUES ('stale', now(), now() - interval '5 minutes',"
                + " '{\"interval\":\"PT10S\",\"queues\":[\"orphans\"],\"rateLimits\":[\"nope\"]}')");
        assertThat(e.operations().summary().alerts()).hasSize(2);
        h.exec("UPDATE gen_durable_nodes SET seen_at = now() WHERE node = 'stale'");
        assertThat(e.operations().summary().alerts()).as("a live node serves orphans and configures nope").isEmpty();
    }

    @Test
    void readiness_names_the_reaper_and_the_gc_while_no_live_node_runs_them() {
        TestClock clock = new TestClock(java.time.Instant.parse("2026-01-01T00:00:00Z"));
        // the harness's nodes run neither loop
        Engine a = h.start("a", c -> c, clock);
        EngineInternals.beacon(a).beat();
        assertThat(a.health().readiness().data()).containsKeys("reaper", "gc");
        assertThat(a.health().readiness().up()).as("a notice, not a failure").isTrue();

        // a node that runs the reaper joins
        Engine b = h.start("b", c -> c.reaper(new io.gendurable.impl.config.EngineConfig.ReaperConfig(true,
                Duration.ofSeconds(1), 1000)), clock);
        EngineInternals.beacon(b).beat();
        EngineInternals.beacon(a).beat();
        assertThat(a.health().readiness().data()).doesNotContainKey("reaper").containsKey("gc");
        assertThat(b.health().readiness().data()).doesNotContainKey("reaper").containsKey("gc");

        // it stops (its row goes at once): the reaper is missing again
        b.stop();
        EngineInternals.beacon(a).beat();
        assertThat(a.health().readiness().data()).containsKeys("reaper", "gc");

        // a node of a version before the field (its beacon names no loops) counts as running both
        h.exec("INSERT INTO gen_durable_nodes (node, started_at, seen_at, info) VALUES ('old', now(), '"
                + clock.instant() + "', '{\"queues\": []}')");
        EngineInternals.beacon(a).beat();
        assertThat(a.health().readiness().data()).doesNotContainKeys("reaper", "gc");
    }
}
