package io.gendurable.impl.config;

import io.gendurable.InsertOptions;
import io.gendurable.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@code gendurable.rate-limits.<name>.allowed|period|burst|shards} and
 * {@code gendurable.concurrency-limits.<name>.limit|shards}: read into {@link LimitsConfig} with
 * their defaults, and every bad value rejected naming its key.
 */
class AdmissionConfigTest {

    private static LimitsConfig read(String... keysAndValues) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return ConfigReader.of(map).read().limits();
    }

    private static ConfigException rejected(String... keysAndValues) {
        ConfigException e = catchThrowableOfType(() -> read(keysAndValues), ConfigException.class);
        assertThat(e).as("reading %s must fail with a ConfigException", List.of(keysAndValues)).isNotNull();
        return e;
    }

    @Test
    void no_limit_keys_mean_no_limits() {
        assertThat(read("gendurable.queues", "default:4").isEmpty()).isTrue();
    }

    @Test
    void a_rate_limit_with_only_allowed_defaults_to_one_second_a_burst_of_allowed_and_one_shard() {
        LimitsConfig l = read("gendurable.rate-limits.api.allowed", "50");
        assertThat(l.rateLimits()).containsExactly(
                Map.entry("api", new LimitsConfig.RateLimit("api", 50, Duration.ofSeconds(1), 50, 1)));
        assertThat(l.rateLimits().get("api").perSecond()).isEqualTo(50.0);
        assertThat(l.concurrencyLimits()).isEmpty();
    }

    @Test
    void every_rate_limit_key_is_read() {
        LimitsConfig l = read("gendurable.rate-limits.api.allowed", "100", "gendurable.rate-limits.api.period", "PT1M",
                "gendurable.rate-limits.api.burst", "300", "gendurable.rate-limits.api.shards", "4",
                "gendurable.rate-limits.mail.allowed", "2.5", "gendurable.rate-limits.mail.period", "500");
        assertThat(l.rateLimits().get("api")).isEqualTo(new LimitsConfig.RateLimit("api", 100, Duration.ofMinutes(1), 300, 4));
        assertThat(l.rateLimits().get("api").perSecond()).isCloseTo(100 / 60.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(l.rateLimits().get("mail")).isEqualTo(new LimitsConfig.RateLimit("mail", 2.5, Duration.ofMillis(500), 2.5, 1));
    }

    @Test
    void a_gate_defaults_to_one_shard_and_reads_its_shards() {
        LimitsConfig l = read("gendurable.concurrency-limits.stripe.limit", "10",
                "gendurable.concurrency-limits.openai.limit", "100", "gendurable.concurrency-limits.openai.shards", "3");
        assertThat(l.concurrencyLimits()).containsOnly(
                Map.entry("stripe", new LimitsConfig.Gate("stripe", 10, 1)),
                Map.entry("openai", new LimitsConfig.Gate("openai", 100, 3)));
        assertThat(l.rateLimits()).isEmpty();
        // 100 over 3 shards: 34, 33, 33.
        LimitsConfig.Gate g = l.concurrencyLimits().get("openai");
        assertThat(List.of(g.shardCapacity(0), g.shardCapacity(1), g.shardCapacity(2))).containsExactly(34, 33, 33);
    }

    @Test
    void a_rate_limit_and_a_gate_may_share_a_name() {
        LimitsConfig l = read("gendurable.rate-limits.api.allowed", "5", "gendurable.concurrency-limits.api.limit", "2");
        assertThat(l.rateLimits()).containsKey("api");
        assertThat(l.concurrencyLimits()).containsKey("api");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "gendurable.concurrency-limits.api.limit|0",
            "gendurable.concurrency-limits.api.limit|-3",
            "gendurable.concurrency-limits.api.limit|five",
            "gendurable.rate-limits.api.allowed|0",
            "gendurable.rate-limits.api.allowed|-1",
            "gendurable.rate-limits.api.allowed|NaN",
            "gendurable.rate-limits.api.allowed|lots",
            "gendurable.rate-limits.api.shards|11",
            "gendurable.rate-limits.api.burst|0.5",
            "gendurable.rate-limits.api.period|0",
            "gendurable.rate-limits.api.period|soon",
    })
    void a_bad_allowed_or_limit_shards_over_the_burst_a_burst_under_one_or_a_bad_period_is_rejected_naming_the_key(
            String key, String value) {
        // A rate limit "api" of 10 a second, then the key under test (a later value wins).
        ConfigException e = rejected("gendurable.rate-limits.api.allowed", "10", key, value);
        assertThat(e.key()).isEqualTo(key);
        assertThat(e.getMessage()).contains(key);
    }

    @Test
    void a_gate_with_more_shards_than_its_limit_is_rejected_naming_its_shards() {
        ConfigException e = rejected("gendurable.concurrency-limits.api.limit", "3",
                "gendurable.concurrency-limits.api.shards", "4");
        assertThat(e.key()).isEqualTo("gendurable.concurrency-limits.api.shards");
        assertThat(e.getMessage()).contains("=4").contains("limit (3)");
        assertThat(rejected("gendurable.concurrency-limits.api.limit", "3",
                "gendurable.concurrency-limits.api.shards", "0").key()).isEqualTo("gendurable.concurrency-limits.api.shards");
    }

    @Test
    void a_rate_limit_without_allowed_or_a_gate_without_limit_is_rejected_naming_the_missing_key() {
        ConfigException rate = rejected("gendurable.rate-limits.api.period", "PT1S", "gendurable.rate-limits.api.burst", "5");
        assertThat(rate.key()).isEqualTo("gendurable.rate-limits.api.allowed");
        assertThat(rate.getMessage()).contains("required");
        ConfigException gate = rejected("gendurable.concurrency-limits.api.shards", "2");
        assertThat(gate.key()).isEqualTo("gendurable.concurrency-limits.api.limit");
        assertThat(gate.getMessage()).contains("required");
    }

    @Test
    void a_name_with_a_colon_is_rejected_naming_it() {
        ConfigException rate = rejected("gendurable.rate-limits.a:b.allowed", "5");
        assertThat(rate.key()).startsWith("gendurable.rate-limits.a:b");
        assertThat(rate.getMessage()).contains("a:b").contains("no ':'");
        ConfigException gate = rejected("gendurable.concurrency-limits.a:b.limit", "5");
        assertThat(gate.key()).startsWith("gendurable.concurrency-limits.a:b");
        assertThat(gate.getMessage()).contains("a:b").contains("no ':'");
    }

    @Test
    void a_misspelled_limit_key_is_rejected_as_unknown() {
        assertThat(rejected("gendurable.rate-limits.api.alowed", "5").key()).isEqualTo("gendurable.rate-limits.api.alowed");
        assertThat(rejected("gendurable.concurrency-limits.api.max", "5").key())
                .isEqualTo("gendurable.concurrency-limits.api.max");
        assertThat(rejected("gendurable.rate-limits.a.b.allowed", "5").key()).isEqualTo("gendurable.rate-limits.a.b.allowed");
    }

    @Test
    void a_step_cannot_name_a_rate_limit_with_a_colon_it_names_a_partition_instead() {
        assertThatThrownBy(() -> Outcome.next("s", 1).rateLimit("api:t1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rateLimit(name, partition)");
        assertThatThrownBy(() -> InsertOptions.builder().rateLimit("api:t1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rateLimit(name, partition)");
        assertThat(Outcome.next("s", 1).rateLimit("api", "t1").options().rateLimit()).isEqualTo("api:t1");
        assertThat(InsertOptions.builder().rateLimit("api", "t1").build().rateLimit()).isEqualTo("api:t1");
        assertThatThrownBy(() -> Outcome.next("s", 1).weight(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
