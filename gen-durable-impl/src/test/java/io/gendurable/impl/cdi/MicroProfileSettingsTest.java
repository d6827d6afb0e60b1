package io.gendurable.impl.cdi;

import io.gendurable.impl.config.ConfigException;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

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

        EngineSettings s = MicroProfileSettings.read(c);

        assertThat(s.config().node().queues()).containsEntry("default", 7);  // the environment still overrides
        assertThat(s.config().limits().rateLimits()).containsKey("psp");
    }

    @Test
    void a_misspelled_key_in_a_properties_source_still_fails_naming_it() {
        SmallRyeConfig c = config(Map.of(), Map.of("gendurable.queuez", "default:3"));

        assertThatThrownBy(() -> MicroProfileSettings.read(c))
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
}
