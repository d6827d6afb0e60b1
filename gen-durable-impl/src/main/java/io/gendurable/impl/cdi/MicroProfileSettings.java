package io.gendurable.impl.cdi;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.Optional;

/**
 * The only class that touches the MicroProfile Config API, so that a container without it
 * fails to load this class alone (caught by {@link EngineSettings#load()}), not the whole layer.
 */
final class MicroProfileSettings {
    private MicroProfileSettings() {
    }

    /**
     * @return the settings read from the application's {@link Config}, or empty when the API is
     * present but no implementation is
     */
    static Optional<EngineSettings> read() {
        Config config;
        try {
            config = ConfigProvider.getConfig();
        } catch (IllegalStateException e) {
            return Optional.empty();  // "no ConfigProviderResolver implementation found"
        }
        return Optional.of(read(config));
    }

    /** @return the settings read from {@code config} */
    static EngineSettings read(Config config) {
        return EngineSettings.read(key -> config.getOptionalValue(key, String.class), config.getPropertyNames());
    }
}
