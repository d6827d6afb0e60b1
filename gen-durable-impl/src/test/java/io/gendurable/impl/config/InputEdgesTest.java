package io.gendurable.impl.config;

import io.gendurable.InsertOptions;
import io.gendurable.Outcome;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InputEdgesTest {

    @Test
    void flushers_numbered_with_a_gap_fail_naming_the_orphaned_index() {
        assertThatThrownBy(() -> ConfigReader.rejectUnknownKeys(List.of(
                "gendurable.flushers[0].queues", "gendurable.flushers[2].max-batch")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("gendurable.flushers[2]").hasMessageContaining("flushers[1] is missing");
        ConfigReader.rejectUnknownKeys(List.of("gendurable.flushers[0].queues", "gendurable.flushers[1].max-batch"));
    }

    @Test
    void a_queue_name_a_configuration_list_could_not_name_is_rejected_at_the_insert_options() {
        assertThatThrownBy(() -> InsertOptions.builder().queue("my queue").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue").hasMessageContaining("my queue");
        assertThatThrownBy(() -> InsertOptions.builder().queue("a:b").build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(InsertOptions.builder().queue("billing.eu-1_x").build().queue()).isEqualTo("billing.eu-1_x");
    }

    @Test
    void poke_and_await_tick_are_read_and_validated() {
        EngineConfig c = ConfigReader.of(java.util.Map.of("gendurable.poke", "Postgres", "gendurable.await.tick", "50"))
                .read();
        assertThat(c.poke().transport()).isEqualTo(PokeTransport.POSTGRES);
        assertThat(c.await().tick()).isEqualTo(Duration.ofMillis(50));
        assertThatThrownBy(() -> ConfigReader.of(java.util.Map.of("gendurable.poke", "cluster")).read())
                .isInstanceOf(ConfigException.class).hasMessageContaining("gendurable.poke")
                .hasMessageContaining("local, postgres or redis");
    }

    @Test
    void the_limiter_and_redis_keys_are_read_validated_and_default_to_postgres_and_the_local_redis() {
        EngineConfig defaults = ConfigReader.of(java.util.Map.of()).read();
        assertThat(defaults.limiter()).isEqualTo(LimiterBackend.POSTGRES);
        assertThat(defaults.redis().url()).isEqualTo("redis://127.0.0.1:6379");
        assertThat(defaults.redis().timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(defaults.usesRedis()).isFalse();
        EngineConfig c = ConfigReader.of(java.util.Map.of("gendurable.limiter", "Redis",
                "gendurable.redis.url", "rediss://cache.internal:6380/1", "gendurable.redis.timeout", "PT0.5S")).read();
        assertThat(c.limiter()).isEqualTo(LimiterBackend.REDIS);
        assertThat(c.redis().url()).isEqualTo("rediss://cache.internal:6380/1");
        assertThat(c.redis().timeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.usesRedis()).isTrue();
        assertThatThrownBy(() -> ConfigReader.of(java.util.Map.of("gendurable.limiter", "memory")).read())
                .isInstanceOf(ConfigException.class).hasMessageContaining("gendurable.limiter=memory")
                .hasMessageContaining("postgres or redis");
        assertThatThrownBy(() -> ConfigReader.of(java.util.Map.of("gendurable.redis.url", "http://cache:6379")).read())
                .isInstanceOf(ConfigException.class).hasMessageContaining("gendurable.redis.url")
                .hasMessageContaining("a redis:// or rediss:// URL");
        assertThatThrownBy(() -> ConfigReader.of(java.util.Map.of("gendurable.redis.timeout", "0")).read())
                .isInstanceOf(ConfigException.class).hasMessageContaining("gendurable.redis.timeout")
                .hasMessageContaining("at least 1 ms");
    }

    @Test
    void await_outcomes_reject_empty_names_blank_names_and_non_positive_timeouts_at_construction() {
        assertThatThrownBy(() -> Outcome.await(Set.of(), "next", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Outcome.await(Set.of(" "), "next", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Outcome.await(Set.of("go"), "next", null, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> Outcome.await(Set.of("go"), " ", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nextStep");
    }
}
