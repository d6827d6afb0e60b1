package io.gendurable.impl.gauges;

import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.gauges.QueueGauges.Figures;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue gauges' figures against rows of known statuses and due times, written with SQL
 * (no scheduler runs: the rows stay as written) and read by one run of the loop.
 */
@EngineTest
class QueueGaugesTest {
    static final Instant T = Instant.parse("2030-01-01T12:00:00Z");

    /** Inserts n rows of a queue in a status, eligible at T + offset. */
    private static void rows(EngineHarness h, int n, String queue, String status, Duration eligibleFromT) {
        String extra = switch (status) {
            case "executing" -> ", locked_by, claim_token, lease_expires_at";
            case "awaiting_signal" -> ", awaits";
            default -> "";
        };
        String values = switch (status) {
            case "executing" -> ", 'n:" + queue + "@x', nextval('gen_durable_claim_token'), now() + interval '1 hour'";
            case "awaiting_signal" -> ", ARRAY['go']";
            default -> "";
        };
        h.exec("INSERT INTO gen_durable (fsm, step, queue, status, eligible_at" + extra + ") SELECT 'f', 's', '" + queue
                + "', '" + status + "', timestamptz '" + T.plus(eligibleFromT) + "'" + values + " FROM generate_series(1, " + n + ")");
    }

    private static Engine engine(EngineHarness h, TestClock clock, Map<String, Integer> queues) {
        // gauges disabled: the test runs the loop's iterations itself
        return h.start("gauges", c -> c.queues(queues).gauges(new EngineConfig.GaugesConfig(false, Duration.ofHours(1))), clock);
    }

    @Test
    void one_run_counts_the_live_rows_of_every_queue_by_status_and_ages_the_oldest_due_row(EngineHarness h) {
        TestClock clock = new TestClock(T);
        Engine e = engine(h, clock, Map.of());
        rows(h, 1, "mail", "runnable", Duration.ofSeconds(-100));     // due 100 s ago: the oldest due
        rows(h, 2, "mail", "runnable", Duration.ofSeconds(-5));
        rows(h, 4, "mail", "runnable", Duration.ofSeconds(30));       // scheduled: counted, not due
        rows(h, 3, "mail", "executing", Duration.ofSeconds(-900));    // not runnable: never the oldest due
        rows(h, 5, "mail", "done", Duration.ofSeconds(-9000));        // terminal: not counted
        rows(h, 6, "mail", "failed", Duration.ofSeconds(-9000));
        rows(h, 2, "billing", "awaiting_signal", Duration.ofSeconds(-50));
        rows(h, 1, "billing", "awaiting_children", Duration.ofSeconds(-50));
        rows(h, 1, "billing", "runnable", Duration.ofSeconds(60));    // runnable but not due: age 0

        e.gauges().runOnce();

        assertThat(e.gauges().figures()).containsOnlyKeys("mail", "billing");
        assertThat(e.gauges().figures("mail")).isEqualTo(new Figures("mail", 7, 3, 0, 0, 100.0, false));
        assertThat(e.gauges().figures("billing")).isEqualTo(new Figures("billing", 1, 0, 2, 1, 0.0, false));
        assertThat(e.gauges().readAt()).contains(T);

        // the age is measured at each run: 20 s later the same row has been due for 120 s
        clock.advance(Duration.ofSeconds(20));
        e.gauges().runOnce();
        assertThat(e.gauges().figures("mail").oldestDueAge()).isEqualTo(120.0);
        // …and the row scheduled 60 s after T is still not due at T + 20 s
        assertThat(e.gauges().figures("billing").oldestDueAge()).isZero();
        clock.advance(Duration.ofSeconds(70));
        e.gauges().runOnce();
        assertThat(e.gauges().figures("billing").oldestDueAge()).isEqualTo(30.0);
    }

    @Test
    void a_queue_seen_once_reads_zero_when_its_rows_end_and_listeners_hear_of_each_new_queue_once(EngineHarness h) {
        TestClock clock = new TestClock(T);
        Engine e = engine(h, clock, Map.of("mine", 1));
        List<Set<String>> heard = new CopyOnWriteArrayList<>();
        e.gauges().onNewQueues(heard::add);
        rows(h, 2, "other", "awaiting_signal", Duration.ZERO);

        e.gauges().runOnce();
        // this node's queue is shown from the first run, with zeros (its scheduler found nothing to claim)
        assertThat(e.gauges().figures()).containsOnlyKeys("mine", "other");
        assertThat(e.gauges().figures("mine")).isEqualTo(new Figures("mine", 0, 0, 0, 0, 0, false));
        assertThat(heard).containsExactly(Set.of("mine", "other"));

        h.exec("UPDATE gen_durable SET status = 'done', awaits = NULL WHERE queue = 'other'");
        rows(h, 1, "late", "runnable", Duration.ofSeconds(-1));
        e.gauges().runOnce();
        assertThat(e.gauges().figures("other")).isEqualTo(new Figures("other", 0, 0, 0, 0, 0, false));
        assertThat(e.gauges().figures("late")).isEqualTo(new Figures("late", 1, 0, 0, 0, 1.0, false));
        assertThat(heard).containsExactly(Set.of("mine", "other"), Set.of("late"));
    }

    @Test
    void a_started_engine_reads_the_figures_at_once_then_every_interval(EngineHarness h) {
        // an interval far longer than the test: the figures come from the run at start
        Engine e = h.build("gauges", c -> c.queues(Map.of())
                .gauges(new EngineConfig.GaugesConfig(true, Duration.ofHours(1))), java.time.InstantSource.system());
        e.prepare();  // migrates
        rows(h, 3, "q", "awaiting_children", Duration.ZERO);
        e.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.gauges().figures("q").awaitingChildren() == 3);
        assertThat(e.metrics().loops.get(QueueGauges.LOOP)).isPresent();

        Engine fast = h.start("gauges-fast", c -> c.queues(Map.of())
                .gauges(new EngineConfig.GaugesConfig(true, Duration.ofMillis(100))), java.time.InstantSource.system());
        await().atMost(Duration.ofSeconds(10)).until(() -> fast.gauges().figures("q").awaitingChildren() == 3);
        h.exec("UPDATE gen_durable SET status = 'runnable', children_pending = 0 WHERE queue = 'q'");
        await().atMost(Duration.ofSeconds(10)).until(() -> fast.gauges().figures("q").runnable() == 3);
    }
}
