package io.gendurable.impl.cdi;

import io.gendurable.impl.config.ConfigException;
import io.gendurable.impl.config.EnvironmentNames;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MicroProfileSettingsTest {

    private static SmallRyeConfig config(Map<String, String> env, Map<String, String> properties) {
        return new SmallRyeConfigBuilder()
                .withSources(new EnvConfigSource(env, 300), new PropertiesConfigSource(properties, "test", 100))
                .build();
    }

    @Test
    void a_server_variable_in_the_environment_is_not_taken_for_an_unknown_engine_key() {
        SmallRyeConfig c = config(Map.of("GENDURABLE_DB_HOST", "db.internal", "GENDURABLE_QUEUES", "default:7"),
                Map.of("gendurable.queues", "default:3", "gendurable.rate-limits.psp.allowed", "5"));

        EngineSettings s = EngineSettings.read(MicroProfileSettings.source(c));

        assertThat(s.config().node().queues()).containsEntry("default", 7);  // the environment still overrides
        assertThat(s.config().limits().rateLimits()).containsKey("psp");
    }

    @Test
    void a_misspelled_key_in_a_properties_source_still_fails_naming_it() {
        SmallRyeConfig c = config(Map.of(), Map.of("gendurable.queuez", "default:3"));

        assertThatThrownBy(() -> EngineSettings.read(MicroProfileSettings.source(c)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("gendurable.queuez");
    }

    @Test
    void the_configuration_is_read_where_the_engine_lives_when_the_context_class_loader_cannot_see_it() throws Exception {
        // WildFly boots an EAR's CDI with the EAR's loader as context: it does not see the WAR that holds the engine
        Thread t = Thread.currentThread();
        ClassLoader before = t.getContextClassLoader();
        ClassLoader own = MicroProfileSettings.class.getClassLoader();
        try (java.net.URLClassLoader blind = new java.net.URLClassLoader(new java.net.URL[0], null);
             java.net.URLClassLoader child = new java.net.URLClassLoader(new java.net.URL[0], own)) {
            t.setContextClassLoader(blind);
            assertThat(MicroProfileSettings.configClassLoader()).isSameAs(own);
            t.setContextClassLoader(child);  // a WAR whose EAR library holds the engine: the WAR's configuration
            assertThat(MicroProfileSettings.configClassLoader()).isSameAs(child);
            t.setContextClassLoader(null);
            assertThat(MicroProfileSettings.configClassLoader()).isSameAs(own);
        } finally {
            t.setContextClassLoader(before);
        }
    }

    /*
     * The environment below is SmallRye Config's own EnvConfigSource fed a map (ordinal 300, as
     * the real one): it lists each variable under its name and a dotted lower-case form, as it
     * does in Open Liberty and WildFly, so the mapping is tested against what the engine sees.
     */

    @Test
    void rate_limits_and_gates_declared_only_in_the_environment_are_discovered() {
        SmallRyeConfig c = config(Map.of("GENDURABLE_RATE_LIMITS_PSP_ALLOWED", "5", "GENDURABLE_RATE_LIMITS_PSP_PERIOD", "PT2S",
                "GENDURABLE_CONCURRENCY_LIMITS_STRIPE_LIMIT", "3", "GENDURABLE_LEASE_TTL", "PT90S"), Map.of());

        EngineSettings s = EngineSettings.read(MicroProfileSettings.source(c));

        assertThat(s.config().limits().rateLimits()).containsOnlyKeys("psp");
        assertThat(s.config().limits().rateLimits().get("psp").allowed()).isEqualTo(5.0);
        assertThat(s.config().limits().rateLimits().get("psp").period()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.config().limits().concurrencyLimits()).containsOnlyKeys("stripe");
        assertThat(s.config().limits().concurrencyLimits().get("stripe").limit()).isEqualTo(3);
        assertThat(s.config().lease().ttl()).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void an_environment_variable_overrides_a_declared_limit_whose_name_has_a_dash() {
        SmallRyeConfig c = config(Map.of("GENDURABLE_RATE_LIMITS_PSP_EU_ALLOWED", "9"),
                Map.of("gendurable.rate-limits.psp-eu.allowed", "5"));

        EngineSettings s = EngineSettings.read(MicroProfileSettings.source(c));

        assertThat(s.config().limits().rateLimits()).containsOnlyKeys("psp-eu");
        assertThat(s.config().limits().rateLimits().get("psp-eu").allowed()).isEqualTo(9.0);
    }

    @Test
    void a_misspelled_environment_only_key_fails_naming_the_variable() {
        SmallRyeConfig c = config(Map.of("GENDURABLE_QUEUEZ", "default:3"), Map.of());

        assertThatThrownBy(() -> EngineSettings.read(MicroProfileSettings.source(c)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("GENDURABLE_QUEUEZ")
                .hasMessageContaining("unknown key");
    }

    @Test
    void a_misspelled_member_key_in_the_environment_fails_too() {
        SmallRyeConfig c = config(Map.of("GENDURABLE_RATE_LIMITS_PSP_ALOWED", "5"), Map.of());

        assertThatThrownBy(() -> EngineSettings.read(MicroProfileSettings.source(c)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("GENDURABLE_RATE_LIMITS_PSP_ALOWED");
    }

    @Test
    void an_environment_declared_limit_is_checked_like_a_property_declared_one() {
        SmallRyeConfig c = config(Map.of("GENDURABLE_RATE_LIMITS_PSP_BURST", "5"), Map.of());

        assertThatThrownBy(() -> EngineSettings.read(MicroProfileSettings.source(c)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("gendurable.rate-limits.psp.allowed: is required for rate limit psp");
    }

    @Test
    void flushers_in_the_environment_are_numbered_like_properties() {
        SmallRyeConfig c = config(Map.of("GENDURABLE_FLUSHERS_1__MAX_BATCH", "5"), Map.of());

        assertThatThrownBy(() -> EngineSettings.read(MicroProfileSettings.source(c)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("flushers[1]");
    }

    @Test
    void the_projects_own_variables_are_not_engine_keys() {
        Map<String, String> env = new java.util.HashMap<>();
        EnvironmentNames.NOT_ENGINE_KEYS.forEach(v -> env.put(v, "x"));
        env.put("PATH", "/usr/bin");

        EngineSettings s = EngineSettings.read(MicroProfileSettings.source(config(env, Map.of())));

        assertThat(s.config().limits().isEmpty()).isTrue();
    }

    /** A named engine's settings as the extension reads them: the engines listed, then its keys. */
    private static EngineSettings named(SmallRyeConfig c, String engine) {
        SettingsSource s = MicroProfileSettings.source(c);
        assertThat(EngineSettings.engineNames(s.lookup(), s.names())).contains(engine);
        return EngineSettings.read(s.lookup(), s.names(), engine);
    }

    @Test
    void a_named_engines_keys_are_read_from_its_environment_variables() {
        // each variable used to fail the deployment as an unknown key (GENDURABLE_ENGINES_BILLING_EU_QUEUES …)
        SmallRyeConfig c = config(Map.of("GENDURABLE_ENGINES", "billing-eu,reports",
                        "GENDURABLE_ENGINES_BILLING_EU_QUEUES", "invoices:4",
                        "GENDURABLE_ENGINES_BILLING_EU_RATE_LIMITS_PSP_ALLOWED", "9",
                        "GENDURABLE_ENGINES_BILLING_EU_CONCURRENCY_LIMITS_STRIPE_LIMIT", "2",
                        "GENDURABLE_ENGINES_REPORTS_LEASE_TTL", "PT90S"),
                Map.of("gendurable.engines.billing-eu.schema", "billing", "gendurable.engines.reports.schema", "reports",
                        "gendurable.engines.billing-eu.rate-limits.psp.period", "PT1S"));

        EngineSettings billing = named(c, "billing-eu");
        assertThat(billing.config().node().queues()).containsExactly(Map.entry("invoices", 4));
        assertThat(billing.config().limits().rateLimits()).containsOnlyKeys("psp");
        assertThat(billing.config().limits().rateLimits().get("psp").allowed()).isEqualTo(9.0);
        assertThat(billing.config().limits().concurrencyLimits()).containsOnlyKeys("stripe");
        assertThat(billing.config().lease().ttl()).as("not the reports engine's").isNotEqualTo(Duration.ofSeconds(90));
        assertThat(named(c, "reports").config().lease().ttl()).isEqualTo(Duration.ofSeconds(90));
        assertThat(EngineSettings.read(MicroProfileSettings.source(c)).config().limits().isEmpty()).as("the default engine's: none").isTrue();
    }

    @Test
    void a_variable_of_an_engine_not_listed_or_of_no_key_fails_naming_it_and_the_engines() {
        SmallRyeConfig unlisted = config(Map.of("GENDURABLE_ENGINES", "billing", "GENDURABLE_ENGINES_BILING_QUEUES", "a:1"),
                Map.of());
        assertThatThrownBy(() -> EngineSettings.read(MicroProfileSettings.source(unlisted))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("GENDURABLE_ENGINES_BILING_QUEUES")
                .hasMessageContaining("engines: billing (GENDURABLE_ENGINES_BILLING_…)");
        SmallRyeConfig misspelled = config(Map.of("GENDURABLE_ENGINES", "billing", "GENDURABLE_ENGINES_BILLING_QUEUEZ", "a:1"),
                Map.of());
        assertThatThrownBy(() -> EngineSettings.read(MicroProfileSettings.source(misspelled))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("GENDURABLE_ENGINES_BILLING_QUEUEZ").hasMessageContaining("unknown key");
    }

    @Test
    void engine_names_one_variable_would_set_for_two_engines_are_refused_naming_the_key() {
        for (String[] clash : new String[][]{{"billing-eu,billing_eu", "one environment form, BILLING_EU"},
                {"billing,billing-max", "GENDURABLE_ENGINES_BILLING_MAX_POLL_INTERVAL would be billing's max-poll-interval"
                        + " and billing-max's poll-interval"},
                {"billing,billing-jta", "billing's jta-datasource and billing-jta's datasource"}}) {
            SmallRyeConfig c = config(Map.of(), Map.of("gendurable.engines", clash[0]));
            SettingsSource s = MicroProfileSettings.source(c);
            assertThatThrownBy(() -> EngineSettings.engineNames(s.lookup(), s.names())).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("gendurable.engines=" + clash[0])
                    .hasMessageContaining("accepted names no environment variable would set two engines' keys with")
                    .hasMessageContaining(clash[1]);
        }
        // a name that only begins like another's is fine when no key continues it
        SmallRyeConfig fine = config(Map.of("GENDURABLE_ENGINES_BILLING_QUEUES", "a:1", "GENDURABLE_ENGINES_BILLING_EU_QUEUES", "b:2"),
                Map.of("gendurable.engines", "billing,billing-eu"));
        assertThat(named(fine, "billing").config().node().queues()).containsOnlyKeys("a");
        assertThat(named(fine, "billing-eu").config().node().queues()).containsOnlyKeys("b");
    }
}
