package io.gendurable.impl.cdi;

import io.gendurable.DurableEngine;
import io.gendurable.impl.config.ConfigException;
import io.gendurable.impl.config.ConfigKey;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.config.ConfigReader;
import io.gendurable.impl.config.EngineConfig;

import io.gendurable.impl.config.EnvironmentNames;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

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

    /** @param source a configuration source @return its validated settings @throws ConfigException naming the offending key */
    static EngineSettings read(SettingsSource source) {
        return read(source.lookup(), source.names());
    }

    /**
     * Reads MicroProfile Config when the container has it; else Java system properties (a
     * container without MicroProfile Config, or a plain Java SE use of this layer).
     *
     * @return the validated settings of the default engine
     * @throws ConfigException naming the offending key
     */
    public static EngineSettings load() {
        return load(DurableEngine.DEFAULT);
    }

    /**
     * @param engine an engine's name ({@link DurableEngine#DEFAULT} for the plain keys)
     * @return the validated settings of that engine, read as {@link #load()} does
     * @throws IllegalArgumentException naming the offending key
     */
    public static EngineSettings load(String engine) {
        SettingsSource source = currentSource();
        return read(source.lookup(), source.names(), engine);
    }

    /**
     * Reads one engine's keys: the default engine's are the plain {@code gendurable.*} keys (a named
     * engine's keys are left out), a named engine's are the same keys under
     * {@code gendurable.engines.<name>.}, with the catalogue's defaults (nothing is inherited from the
     * default engine). A failure names the key as the application wrote it.
     *
     * @param lookup looks up a full key; empty when unset
     * @param names  every property name the source knows
     * @param engine the engine's name
     * @return the settings
     * @throws IllegalArgumentException naming the offending key
     */
    public static EngineSettings read(Function<String, Optional<String>> lookup, Iterable<String> names, String engine) {
        List<String> own = new ArrayList<>();
        String all = ConfigKey.PREFIX + ConfigKeys.ENGINE_NAMESPACE;
        if (DurableEngine.DEFAULT.equals(engine)) {
            names.forEach(n -> {
                if (!n.startsWith(all)) {
                    own.add(n);
                }
            });
            return read(lookup, own);
        }
        String prefix = namespace(engine);
        names.forEach(n -> {
            if (n.startsWith(prefix)) {
                own.add(ConfigKey.PREFIX + n.substring(prefix.length()));
            }
        });
        try {
            return read(key -> lookup.apply(key.startsWith(ConfigKey.PREFIX)
                    ? prefix + key.substring(ConfigKey.PREFIX.length()) : key), own);
        } catch (IllegalArgumentException e) {
            throw underNamespace(engine, e);
        }
    }

    /**
     * @param engine a named engine
     * @param e      a failure whose message names plain keys ({@code gendurable.metrics.backend})
     * @return the same failure naming them under the engine's namespace, where the application wrote them
     */
    public static ConfigException underNamespace(String engine, IllegalArgumentException e) {
        String prefix = namespace(engine);
        return new ConfigException(prefix.substring(0, prefix.length() - 1), "engine " + engine + ": "
                + PLAIN_KEY.matcher(String.valueOf(e.getMessage())).replaceAll(prefix.replace("$", "\\$")));
    }

    private static final Pattern PLAIN_KEY = Pattern.compile("\\bgendurable\\.(?!engines\\.)");
    private static final Pattern ENGINE_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

    /** @param engine a named engine @return the prefix of its keys, {@code gendurable.engines.<name>.} */
    public static String namespace(String engine) {
        return ConfigKey.PREFIX + ConfigKeys.ENGINE_NAMESPACE + engine + ".";
    }

    /**
     * @return the named engines of {@code gendurable.engines}, checked: each a lower-case name
     * (letters, digits, '_', '-'), none twice, none {@code default}, no two whose environment
     * variables clash ({@link io.gendurable.impl.config.EnvironmentNames#clash}), and no key under
     * {@code gendurable.engines.<name>.} for a name the list lacks
     * @throws ConfigException naming the key and the names accepted
     */
    public static List<String> engineNames() {
        SettingsSource source = currentSource();
        return engineNames(source.lookup(), source.names());
    }

    /**
     * @param lookup looks up a full key
     * @param names  every property name the source knows
     * @return the named engines, as {@link #engineNames()}
     */
    static List<String> engineNames(Function<String, Optional<String>> lookup, Iterable<String> names) {
        String key = ConfigKeys.ENGINES.key();
        List<String> listed = lookup.apply(key).map(String::trim).filter(v -> !v.isEmpty())
                .map(v -> ConfigKeys.ENGINES.parse("", v)).orElse(List.of());
        Set<String> seen = new LinkedHashSet<>();
        for (String name : listed) {
            if (!ENGINE_NAME.matcher(name).matches()) {
                throw new ConfigException(key, name, "engine names of 1 to 63 lower-case letters, digits, '_' and '-'");
            }
            if (DurableEngine.DEFAULT.equals(name)) {
                throw new ConfigException(key, String.join(",", listed), "names other than " + DurableEngine.DEFAULT
                        + " (the engine of the plain gendurable.* keys always exists)");
            }
            if (!seen.add(name)) {
                throw new ConfigException(key, String.join(",", listed), "each engine name once (" + name + " is listed twice)");
            }
        }
        Optional<String> clash = EnvironmentNames.clash(List.copyOf(seen));
        if (clash.isPresent()) {
            throw new ConfigException(key, String.join(",", listed), "names no environment variable would set two engines' "
                    + "keys with (GENDURABLE_ENGINES_<NAME>_<KEY>, where - and _ are both _): " + clash.get());
        }
        String all = ConfigKey.PREFIX + ConfigKeys.ENGINE_NAMESPACE;
        for (String n : names) {
            if (n.startsWith(all)) {
                int dot = n.indexOf('.', all.length());
                String engine = dot < 0 ? n.substring(all.length()) : n.substring(all.length(), dot);
                if (!seen.contains(engine)) {
                    throw new ConfigException(n, "no engine " + engine + " in " + key + "; engines: "
                            + String.join(", ", allNames(List.copyOf(seen))));
                }
            }
        }
        return List.copyOf(seen);
    }

    /** @param named the named engines @return the default engine's name, then the named ones */
    public static List<String> allNames(List<String> named) {
        List<String> out = new ArrayList<>();
        out.add(DurableEngine.DEFAULT);
        out.addAll(named);
        return out;
    }

    /** @return where the configuration comes from: MicroProfile Config when the container has it, else system properties */
    private static SettingsSource currentSource() {
        Optional<SettingsSource> fromMp;
        try {
            fromMp = MicroProfileSettings.source();
        } catch (NoClassDefFoundError e) {
            fromMp = Optional.empty();  // the MicroProfile Config API is not on the class path
        }
        return fromMp.orElseGet(() -> new SettingsSource(key -> Optional.ofNullable(System.getProperty(key)),
                System.getProperties().stringPropertyNames()));
    }

}
