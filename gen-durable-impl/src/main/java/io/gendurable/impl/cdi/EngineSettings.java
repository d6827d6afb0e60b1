package io.gendurable.impl.cdi;

import io.gendurable.impl.config.ConfigException;
import io.gendurable.impl.config.ConfigReader;
import io.gendurable.impl.config.EngineConfig;

import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The {@code gendurable.*} configuration, read and validated once: the engine's
 * {@link EngineConfig}, and the reader for the keys only this layer uses (data source and
 * executors).
 *
 * @param config the validated engine configuration
 * @param reader the reader over the same source, for {@code datasource}, {@code jdbc.*} and executor keys
 */
public record EngineSettings(EngineConfig config, ConfigReader reader) {

    /** Requires both parts. */
    public EngineSettings {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(reader, "reader");
    }

    /**
     * Reads and validates every {@code gendurable.*} key. Has no side effect, so a bad value
     * fails the deployment before anything touches the database or starts a thread.
     *
     * @param lookup looks up a full key; empty when unset
     * @param names  every property name the source knows (unknown {@code gendurable.} keys fail)
     * @return the settings
     * @throws ConfigException naming the offending key
     */
    public static EngineSettings read(Function<String, Optional<String>> lookup, Iterable<String> names) {
        ConfigReader.rejectUnknownKeys(names);
        ConfigReader reader = new ConfigReader(key -> {
            try {
                return lookup.apply(key);
            } catch (IllegalArgumentException | NoSuchElementException e) {
                // e.g. an unresolvable ${expression} in MicroProfile Config
                throw new ConfigException(key, String.valueOf(e.getMessage()));
            }
        }, names);
        // ConfigException, or (for the schema name) an IllegalArgumentException naming the key
        return new EngineSettings(reader.read(), reader);
    }

    /**
     * Reads MicroProfile Config when the container has it; else Java system properties (a
     * container without MicroProfile Config, or a plain Java SE use of this layer).
     *
     * @return the validated settings
     * @throws ConfigException naming the offending key
     */
    public static EngineSettings load() {
        Optional<EngineSettings> fromMp;
        try {
            fromMp = MicroProfileSettings.read();
        } catch (NoClassDefFoundError e) {
            fromMp = Optional.empty();  // the MicroProfile Config API is not on the class path
        }
        return fromMp.orElseGet(() -> read(key -> Optional.ofNullable(System.getProperty(key)),
                System.getProperties().stringPropertyNames()));
    }

    /**
     * @param jdbcUrl a JDBC URL, which may carry {@code password=…}
     * @return the URL with any password parameter's value replaced by {@code ***}
     */
    public static String maskPassword(String jdbcUrl) {
        return jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
