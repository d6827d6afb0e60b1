package io.gendurable.impl.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** {@code gendurable.*} keys: invalid values fail naming the key; valid ones parse to the expected configuration. */
class ConfigValidationTest {

    private static EngineConfig read(String... keysAndValues) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return ConfigReader.of(map).read();
    }

    private static ConfigException rejected(String... keysAndValues) {
        ConfigException e = catchThrowableOfType(() -> read(keysAndValues), ConfigException.class);
        assertThat(e).as("reading %s must fail with a ConfigException", List.of(keysAndValues)).isNotNull();
        return e;
    }

    @ParameterizedTest
    @ValueSource(strings = {"default:0", "default:-1", "default:10,checkout:0", "default:ten", "default", "default:99999999999"})
    void a_queue_concurrency_that_is_not_a_positive_int_is_rejected_naming_gendurable_queues(String queues) {
        ConfigException e = rejected("gendurable.queues", queues);

        assertThat(e.key()).isEqualTo("gendurable.queues");
        assertThat(e.getMessage()).contains("gendurable.queues").contains(queues);
    }

    @Test
    void a_queue_named_twice_is_rejected() {
        assertThat(rejected("gendurable.queues", "default:1,default:2").getMessage())
                .contains("gendurable.queues").contains("twice");
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "10s", "PT", "-5", "1.5"})
    void an_unknown_duration_format_is_rejected_naming_the_key_and_the_accepted_forms(String value) {
        ConfigException e = rejected("gendurable.lease-ttl", value);

        assertThat(e.key()).isEqualTo("gendurable.lease-ttl");
        assertThat(e.getMessage()).contains("gendurable.lease-ttl=" + value).contains("ISO-8601").contains("milliseconds");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "PT0S", "-PT5S"})
    void a_duration_that_is_not_positive_is_rejected_naming_the_key(String value) {
        assertThat(rejected("gendurable.poll-interval", value).key()).isEqualTo("gendurable.poll-interval");
    }

    @ParameterizedTest
    @ValueSource(strings = {"gendurable.poll-interval", "gendurable.heartbeat-interval", "gendurable.reaper.interval",
            "gendurable.gc.interval", "gendurable.gauges.interval", "gendurable.health.timeout",
            "gendurable.nodes.beacon-interval", "gendurable.nodes.retention"})
    void a_duration_below_one_millisecond_is_rejected_because_the_engine_schedules_in_milliseconds(String key) {
        // PT0.0005S would become a 0 ms poll (a hot loop) or a 0 ms fixed delay (refused by the executor at start-up)
        ConfigException e = rejected(key, "PT0.0005S");

        assertThat(e.key()).isEqualTo(key);
        assertThat(e.getMessage()).contains(key).contains("1 ms");
    }

    @Test
    void a_min_demand_above_concurrency_plus_prefetch_is_rejected_naming_gendurable_min_demand() {
        ConfigException e = rejected("gendurable.queues", "default:10,small:2", "gendurable.prefetch", "1",
                "gendurable.min-demand", "4");

        assertThat(e.key()).isEqualTo("gendurable.min-demand");
        assertThat(e.getMessage()).contains("gendurable.min-demand").contains("small");
        assertThatCode(() -> read("gendurable.queues", "default:10,small:2", "gendurable.prefetch", "1",
                "gendurable.min-demand", "3")).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"PT10S", "PT11S", "10000"})
    void a_heartbeat_not_shorter_than_the_lease_is_rejected_naming_gendurable_heartbeat_interval(String heartbeat) {
        ConfigException e = rejected("gendurable.lease-ttl", "PT10S", "gendurable.heartbeat-interval", heartbeat);

        assertThat(e.key()).isEqualTo("gendurable.heartbeat-interval");
        assertThat(e.getMessage()).contains("gendurable.heartbeat-interval").contains("gendurable.lease-ttl");
    }

    @Test
    void an_unknown_gendurable_key_is_rejected_by_name_while_other_prefixes_and_known_keys_pass() {
        ConfigException e = catchThrowableOfType(() -> ConfigReader.rejectUnknownKeys(
                List.of("gendurable.queues", "mp.config.profile", "gendurable.lease-tll")), ConfigException.class);

        assertThat(e).isNotNull();
        assertThat(e.key()).isEqualTo("gendurable.lease-tll");
        assertThat(e.getMessage()).contains("gendurable.lease-tll").contains("lease-ttl");
        assertThatCode(() -> ConfigReader.rejectUnknownKeys(List.of("gendurable.queues", "gendurable.lease-ttl",
                "gendurable.flushers[0].max-batch", "gendurable.gc.retention", "other.thing")))
                .doesNotThrowAnyException();
        assertThat(catchThrowableOfType(() -> ConfigReader.rejectUnknownKeys(List.of("gendurable.flushers[0].max-size")),
                ConfigException.class)).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"gendurable.reaper.enabled", "gendurable.gc.enabled", "gendurable.migrate-at-start",
            "gendurable.gauges.enabled", "gendurable.start-at-insert"})
    void a_boolean_that_is_not_true_or_false_is_rejected_naming_the_key(String key) {
        ConfigException e = rejected(key, "yes");

        assertThat(e.key()).isEqualTo(key);
        assertThat(e.getMessage()).contains(key + "=yes").contains("true or false");
    }

    @Test
    void a_bad_integer_is_rejected_naming_the_key() {
        assertThat(rejected("gendurable.prefetch", "many").key()).isEqualTo("gendurable.prefetch");
        assertThat(rejected("gendurable.prefetch", "-2").key()).isEqualTo("gendurable.prefetch");
        assertThat(rejected("gendurable.gc.batch", "0").key()).isEqualTo("gendurable.gc.batch");
    }

    @Test
    void valid_iso_8601_durations_plain_milliseconds_and_a_queue_list_parse_to_the_expected_config() {
        EngineConfig c = read(
                "gendurable.node-id", "node-7",
                "gendurable.queues", " default:10 , checkout:5,bulk.jobs:1 ",
                "gendurable.lease-ttl", "PT1M",
                "gendurable.heartbeat-interval", "15000",
                "gendurable.poll-interval", "pt0.25s",
                "gendurable.max-poll-interval", "PT2S",
                "gendurable.prefetch", "3",
                "gendurable.min-demand", "2",
                "gendurable.drain-timeout", "0",
                "gendurable.reaper.enabled", "FALSE",
                "gendurable.reaper.interval", "P1D",
                "gendurable.gc.retention", "PT72H",
                "gendurable.schema", "jobs",
                "gendurable.migrate-at-start", "false");

        Map<String, Integer> queues = new LinkedHashMap<>();
        queues.put("default", 10);
        queues.put("checkout", 5);
        queues.put("bulk.jobs", 1);
        assertThat(c.node().queues()).containsExactlyEntriesOf(queues);
        assertThat(c.node().id()).isEqualTo("node-7");
        assertThat(c.lease()).isEqualTo(new EngineConfig.LeaseConfig(Duration.ofMinutes(1), Duration.ofSeconds(15)));
        assertThat(c.poll()).isEqualTo(new EngineConfig.PollConfig(Duration.ofMillis(250), Duration.ofSeconds(2), 3, 2, true));
        assertThat(c.drain().timeout()).isEqualTo(Duration.ZERO);
        assertThat(c.reaper().enabled()).isFalse();
        assertThat(c.reaper().interval()).isEqualTo(Duration.ofDays(1));
        assertThat(c.gc().retention()).isEqualTo(Duration.ofHours(72));
        assertThat(c.gc()).isEqualTo(new EngineConfig.GcConfig(true, EngineConfig.defaults().gc().interval(),
                Duration.ofHours(72), Duration.ofDays(7), EngineConfig.defaults().gc().batch()));
        assertThat(c.schema()).isEqualTo(new EngineConfig.SchemaConfig("jobs", false));
        assertThat(c.flushers()).isEqualTo(EngineConfig.defaults().flushers());
    }

    @Test
    void no_keys_give_the_defaults_and_flusher_keys_route_queues_to_their_flusher() {
        EngineConfig defaults = EngineConfig.defaults();
        assertThat(read().toBuilder().nodeId("x").build()).isEqualTo(defaults.toBuilder().nodeId("x").build());

        EngineConfig c = read("gendurable.queues", "default:4,checkout:2",
                "gendurable.flushers[0].queues", "checkout", "gendurable.flushers[0].max-batch", "500",
                "gendurable.flushers[0].max-delay", "PT0.005S");

        assertThat(c.flushers()).hasSize(2);
        assertThat(c.flusherFor("checkout")).isEqualTo(new EngineConfig.FlusherConfig(List.of("checkout"), 500,
                Duration.ofMillis(5)));
        assertThat(c.flusherFor("default").queues()).containsExactly("*");
        assertThat(read("gendurable.queues", "none").node().queues()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "17", "two"})
    void a_flusher_parallelism_outside_one_to_sixteen_is_rejected_naming_the_key(String value) {
        ConfigException e = rejected("gendurable.flushers[0].parallelism", value);
        assertThat(e.getMessage()).contains("parallelism").contains(value);
    }

    @Test
    void a_flusher_parallelism_is_read_and_defaults_to_two() {
        EngineConfig c = read("gendurable.flushers[0].queues", "*", "gendurable.flushers[0].parallelism", "4");
        assertThat(c.flushers()).hasSize(1);
        assertThat(c.flushers().get(0).parallelism()).isEqualTo(4);
        assertThat(EngineConfig.defaults().flushers().get(0).parallelism()).isEqualTo(2);
    }

    @Test
    void the_poke_window_is_read_may_be_zero_and_defaults_to_fifty_milliseconds() {
        assertThat(EngineConfig.defaults().poke().window()).isEqualTo(Duration.ofMillis(50));
        assertThat(read("gendurable.poke.window", "PT0.1S").poke().window()).isEqualTo(Duration.ofMillis(100));
        assertThat(read("gendurable.poke.window", "0").poke().window()).isZero();
        assertThat(read("gendurable.poke.window", "PT1S").poke().window()).isEqualTo(Duration.ofSeconds(1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"-PT0.001S", "PT1.001S", "PT1M"})
    void a_poke_window_that_is_negative_or_above_one_second_is_rejected_naming_the_key(String value) {
        ConfigException e = rejected("gendurable.poke.window", value);
        assertThat(e.key()).isEqualTo("gendurable.poke.window");
        assertThat(e.getMessage()).contains("a duration from 0 to PT1S");
    }

    @Test
    void the_health_timeout_is_at_most_a_minute_and_the_stall_grace_is_not_negative() {
        ConfigException timeout = rejected("gendurable.health.timeout", "PT61S");
        assertThat(timeout.key()).isEqualTo("gendurable.health.timeout");
        assertThat(timeout.getMessage()).contains("a duration from 1 ms to PT1M");
        ConfigException grace = rejected("gendurable.health.stall-grace", "-PT1S");
        assertThat(grace.key()).isEqualTo("gendurable.health.stall-grace");
        assertThat(grace.getMessage()).contains("a duration of zero or more");
        assertThatCode(() -> read("gendurable.health.timeout", "PT60S", "gendurable.health.stall-grace", "PT0S"))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"gendurable.lease-ttl", "gendurable.heartbeat-interval", "gendurable.poll-interval",
            "gendurable.max-poll-interval", "gendurable.drain-timeout", "gendurable.reaper.interval",
            "gendurable.gc.interval", "gendurable.gc.retention", "gendurable.gc.failed-retention", "gendurable.await.tick", "gendurable.poke.window", "gendurable.redis.timeout",
            "gendurable.flushers[0].max-delay", "gendurable.rate-limits.psp.period", "gendurable.gauges.interval",
            "gendurable.health.timeout", "gendurable.health.stall-grace", "gendurable.history.retention",
            "gendurable.nodes.beacon-interval", "gendurable.nodes.retention"})
    void every_duration_key_rejects_garbage_and_durations_over_a_thousand_years_naming_the_key(String key) {
        String[] extra = key.startsWith("gendurable.rate-limits.") ? new String[]{"gendurable.rate-limits.psp.allowed", "5"}
                : new String[0];
        for (String bad : List.of("soon", "P365001D", "PT2562047788015215H", "99999999999999999999")) {
            String[] kv = new String[extra.length + 2];
            System.arraycopy(extra, 0, kv, 0, extra.length);
            kv[extra.length] = key;
            kv[extra.length + 1] = bad;
            ConfigException e = rejected(kv);
            assertThat(e.key()).as(bad).isEqualTo(key);
            assertThat(e.getMessage()).as(bad).contains(key + "=" + bad);
            if (bad.equals("P365001D")) {
                assertThat(e.getMessage()).contains("at most 1,000 years");
            }
        }
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "gendurable.max-value-bytes       | 1023            | from 1024 to",
            "gendurable.max-value-bytes       | 67108865        | from 1024 to",
            "gendurable.max-value-bytes       | 1MB             | an integer",
            "gendurable.reaper.batch          | 0               | 1 or more",
            "gendurable.min-demand            | 0               | 1 or more",
            "gendurable.gc.batch              | 2147483648      | an integer",
            "gendurable.flushers[0].max-batch | 0               | 1 or more",
            "gendurable.node-id               | " + "n123456789n123456789n123456789n123456789n123456789n123456789n123456789n123456789n123456789n1234567890 | at most 100 characters"})
    void an_integer_or_name_out_of_its_range_is_rejected_naming_the_key_and_the_accepted_values(String key, String value,
                                                                                                String accepted) {
        ConfigException e = rejected(key, value);

        assertThat(e.key().replace("[]", "[0]")).isEqualTo(key);
        assertThat(e.getMessage()).contains(accepted);
    }

    @Test
    void max_value_bytes_is_read_and_defaults_to_one_mebibyte() {
        assertThat(read().values().maxBytes()).isEqualTo(1 << 20).isEqualTo(ConfigKeys.MAX_VALUE_BYTES.defaultValue());
        assertThat(read("gendurable.max-value-bytes", "4096").values().maxBytes()).isEqualTo(4096);
        assertThat(read().describe()).contains("max-value-bytes=1048576");
    }
}
