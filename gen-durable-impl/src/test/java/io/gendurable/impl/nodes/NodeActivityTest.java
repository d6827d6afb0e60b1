package io.gendurable.impl.nodes;

import io.gendurable.StepTiming;
import io.gendurable.ThroughputPoint;
import io.gendurable.impl.config.ConfigException;
import io.gendurable.impl.config.ConfigReader;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The beacon's in-memory figures on a test clock, and the beacon's configuration keys. */
class NodeActivityTest {
    private static final Instant T0 = Instant.parse("2026-12-01T11:00:30Z");

    @Test
    void outcomes_count_per_queue_and_minute_and_leave_the_hour_behind_them() {
        TestClock clock = new TestClock(T0);
        NodeActivity a = new NodeActivity(clock);
        a.stepFinished(1, "f", "s", "orders", "done", 1000, null, false);
        a.stepFinished(2, "f", "s", "orders", "stop", 1000, null, false);
        a.stepFinished(3, "f", "s", "orders", "next", 1000, null, false);
        a.stepFinished(4, "f", "s", "orders", "done", 1000, null, true);  // stale: nothing committed
        clock.advance(Duration.ofMinutes(1));
        a.stepFinished(5, "f", "s", "orders", "done", 1000, null, false);
        a.stepFinished(6, "f", "s", "mail", "done", 1000, null, false);

        assertThat(a.throughput(clock.instant())).containsExactly(
                new ThroughputPoint("mail", Instant.parse("2026-12-01T11:01:00Z"), 1, 0),
                new ThroughputPoint("orders", Instant.parse("2026-12-01T11:00:00Z"), 1, 1),
                new ThroughputPoint("orders", Instant.parse("2026-12-01T11:01:00Z"), 1, 0));

        clock.advance(Duration.ofMinutes(59));  // 12:00:30: the 11:00 minute is an hour old
        assertThat(a.throughput(clock.instant())).extracting(ThroughputPoint::minute)
                .containsExactly(Instant.parse("2026-12-01T11:01:00Z"), Instant.parse("2026-12-01T11:01:00Z"));
        // the 12:00 minute takes over the 11:00 slot: it starts from zero
        a.stepFinished(7, "f", "s", "orders", "stop", 1000, null, false);
        assertThat(a.throughput(clock.instant())).contains(
                new ThroughputPoint("orders", Instant.parse("2026-12-01T12:00:00Z"), 0, 1));
    }

    @Test
    void timings_are_percentiles_of_the_last_ten_minutes() {
        TestClock clock = new TestClock(T0);
        NodeActivity a = new NodeActivity(clock);
        for (int i = 1; i <= 100; i++) {
            a.stepFinished(i, "order", "ship", "orders", "next", i * 1_000_000L, null, false);  // 1..100 ms
        }
        List<StepTiming> t = a.timings(clock.instant());
        assertThat(t).hasSize(1);
        StepTiming ship = t.get(0);
        assertThat(ship.count()).isEqualTo(100);
        assertThat(ship.p50().toMillis()).isBetween(49L, 51L);
        assertThat(ship.p90().toMillis()).isBetween(89L, 91L);
        assertThat(ship.p99().toMillis()).isBetween(98L, 100L);
        assertThat(ship.max().toMillis()).isBetween(99L, 101L);

        clock.advance(Duration.ofMinutes(5));
        a.stepFinished(101, "order", "ship", "orders", "done", 500_000_000L, null, false);
        assertThat(a.timings(clock.instant()).get(0).count()).isEqualTo(101);
        clock.advance(Duration.ofMinutes(6));  // the first batch is 11 minutes old
        StepTiming later = a.timings(clock.instant()).get(0);
        assertThat(later.count()).isEqualTo(1);
        assertThat(later.p50()).isEqualTo(later.max());
        clock.advance(Duration.ofMinutes(10));
        assertThat(a.timings(clock.instant())).as("nothing in the window").isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "PT0S", "-PT10S"})
    void a_beacon_interval_that_is_not_positive_is_rejected_naming_the_key(String value) {
        ConfigException e = catchThrowableOfType(() -> ConfigReader.of(Map.of("gendurable.nodes.beacon-interval", value)).read(),
                ConfigException.class);
        assertThat(e).isNotNull();
        assertThat(e.key()).isEqualTo("gendurable.nodes.beacon-interval");
        assertThat(e.getMessage()).contains("gendurable.nodes.beacon-interval");
    }

    @Test
    void a_retention_under_three_beacon_intervals_is_rejected_naming_the_retention() {
        ConfigException e = catchThrowableOfType(() -> ConfigReader.of(Map.of("gendurable.nodes.beacon-interval", "PT1M",
                "gendurable.nodes.retention", "PT2M")).read(), ConfigException.class);
        assertThat(e).isNotNull();
        assertThat(e.key()).isEqualTo("gendurable.nodes.retention");
        assertThat(e.getMessage()).contains("gendurable.nodes.beacon-interval").contains("PT3M");
        assertThat(ConfigReader.of(Map.of()).read().nodes().beaconInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(ConfigReader.of(Map.of()).read().nodes().retention()).isEqualTo(Duration.ofHours(1));
    }
}
