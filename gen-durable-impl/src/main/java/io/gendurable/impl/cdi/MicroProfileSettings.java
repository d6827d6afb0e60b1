package io.gendurable.impl.cdi;

import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.config.EnvironmentNames;
import java.util.Arrays;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The only class that touches the MicroProfile Config API, so that a container without it
 * fails to load this class alone (caught by {@link EngineSettings#load()}), not the whole layer.
 * It knows no settings, only their source.
 */
final class MicroProfileSettings {
    private MicroProfileSettings() {
    }

    /**
     * @return the application's {@link Config} as a lookup and its names, or empty when the API is
     * present but no implementation is
     */
    static Optional<SettingsSource> source() {
        Config config;
        try {
            config = ConfigProvider.getConfig(configClassLoader());
        } catch (IllegalStateException e) {
            return Optional.empty();  // "no ConfigProviderResolver implementation found"
        }
        return Optional.of(source(config));
    }

    /**
     * The class loader whose configuration the engine reads: the thread's context class loader when
     * it sees the engine's own classes (a WAR, or an EAR whose library folder holds the engine),
     * else the engine's class loader. WildFly starts the CDI container of an EAR with the EAR's
     * class loader as context, which does not see a web module's
     * {@code WEB-INF/classes/META-INF/microprofile-config.properties}: read there, an engine
     * bundled in the WAR ran on its defaults.
     *
     * @return where to read the application's configuration
     */
    static ClassLoader configClassLoader() {
        ClassLoader own = MicroProfileSettings.class.getClassLoader();
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context == null || context == own) {
            return own;
        }
        try {
            return Class.forName(MicroProfileSettings.class.getName(), false, context) == MicroProfileSettings.class
                    ? context : own;
        } catch (ClassNotFoundException | LinkageError e) {
            return own;
        }
    }

    /**
     * Values come from the whole {@code config}, so an environment variable GENDURABLE_QUEUES
     * overrides gendurable.queues. The names, which are checked for unknown keys and scanned for
     * rate limits, gates and flushers, are the other sources' names as they are, and the
     * environment's mapped onto the catalogue by {@link EnvironmentNames}: MicroProfile Config
     * lists an environment variable under its own name (SmallRye Config adds a dotted lower-case
     * form, GENDURABLE_DB_HOST as gendurable.db.host), so GENDURABLE_RATE_LIMITS_PSP_ALLOWED
     * declares the rate limit psp, GENDURABLE_ENGINES_BILLING_QUEUES sets the named engine billing's
     * queues, the project's own variables that are no engine keys
     * (GENDURABLE_DB_HOST, a server variable of Open Liberty's server.xml) are skipped, and any
     * other GENDURABLE_* variable fails as a misspelled key.
     *
     * @param config the application's configuration
     * @return the lookup over {@code config} and the names (a misspelled key or variable fails when
     * {@link EngineSettings#read(SettingsSource)} reads them)
     */
    static SettingsSource source(Config config) {
        Set<String> names = new LinkedHashSet<>();
        List<String> environment = new ArrayList<>();
        for (ConfigSource source : config.getConfigSources()) {
            if (isEnvironment(source)) {
                environment.addAll(source.getPropertyNames());
            } else {
                names.addAll(source.getPropertyNames());
            }
        }
        // the named engines, as listed (checked later, by EngineSettings.engineNames): their variables map onto their keys
        List<String> engines = config.getOptionalValue(ConfigKeys.ENGINES.key(), String.class)
                .map(v -> Arrays.stream(v.split(",")).map(String::trim).filter(e -> !e.isEmpty()).toList())
                .orElse(List.of());
        names.addAll(EnvironmentNames.propertyNames(environment, List.copyOf(names), engines));
        return new SettingsSource(key -> config.getOptionalValue(key, String.class), names);
    }

    /** @return whether the source is the environment-variable one (named so by SmallRye Config, in Liberty and WildFly) */
    private static boolean isEnvironment(ConfigSource source) {
        String name = source.getName();
        return name != null && name.contains("EnvConfigSource");
    }
}
