package io.gendurable.impl.config;

import io.gendurable.impl.config.ConfigKey.Family;
import io.gendurable.impl.config.ConfigParts.FlusherConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;

import static io.gendurable.impl.config.ConfigKeys.CONCURRENCY_LIMITS;
import static io.gendurable.impl.config.ConfigKeys.FLUSHERS;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_MAX_BATCH;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_MAX_DELAY;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_PARALLELISM;
import static io.gendurable.impl.config.ConfigKeys.FLUSHER_QUEUES;
import static io.gendurable.impl.config.ConfigKeys.GATE_LIMIT;
import static io.gendurable.impl.config.ConfigKeys.GATE_SHARDS;
import static io.gendurable.impl.config.ConfigKeys.RATE_ALLOWED;
import static io.gendurable.impl.config.ConfigKeys.RATE_BURST;
import static io.gendurable.impl.config.ConfigKeys.RATE_LIMITS;
import static io.gendurable.impl.config.ConfigKeys.RATE_PERIOD;
import static io.gendurable.impl.config.ConfigKeys.RATE_SHARDS;

/**
 * Reads the {@code gendurable.*} keys of the catalogue ({@link ConfigKeys}) from any source
 * (MicroProfile Config in a container, a map in tests) into a validated {@link EngineConfig}.
 * Every bad value fails with the key, the value and what is accepted; an unknown
 * {@code gendurable.} key fails too (a typo would otherwise silently keep a default).
 */
public final class ConfigReader {
    private final Function<String, Optional<String>> source;
    private final Iterable<String> names;

    /** @param source looks up a full key ({@code gendurable.queues}); empty when unset */
    public ConfigReader(Function<String, Optional<String>> source) {
        this(source, List.of());
    }

    /**
     * @param source looks up a full key; empty when unset
     * @param names  every property name the source knows: the rate limits and gates are found by name
     */
    public ConfigReader(Function<String, Optional<String>> source, Iterable<String> names) {
        this.source = source;
        this.names = names;
    }

    /** @param map the keys and values @return a reader over the map */
    public static ConfigReader of(Map<String, String> map) {
        return new ConfigReader(k -> Optional.ofNullable(map.get(k)), map.keySet());
    }

    /**
     * Fails on any {@code gendurable.} key this release does not read, and on flushers numbered
     * with a gap.
     *
     * @param names every property name the source knows
     */
    public static void rejectUnknownKeys(Iterable<String> names) {
        for (String name : names) {
            if (name.startsWith(ConfigKey.PREFIX) && !ConfigCatalogue.isKnown(name.substring(ConfigKey.PREFIX.length()))) {
                throw new ConfigException(name, "unknown key; accepted: " + ConfigCatalogue.accepted());
            }
        }
        int expected = 0;
        for (int i : members(FLUSHERS, names).stream().map(Integer::valueOf).distinct().sorted().toList()) {
            if (i != expected) {
                throw new ConfigException(ConfigKey.PREFIX + FLUSHERS.path(String.valueOf(i)), "flushers numbered 0, 1, 2… without gaps "
                        + "(" + FLUSHERS.path(String.valueOf(expected)) + " is missing, so " + FLUSHERS.path(String.valueOf(i))
                        + " would be ignored)");
            }
            expected++;
        }
    }

    /** @return the validated configuration (unknown keys and flusher numbering gaps fail too) */
    public EngineConfig read() {
        rejectUnknownKeys(names);
        EngineConfig.Builder b = EngineConfig.builder();
        ConfigCatalogue.engineKeys().forEach(k -> readInto(b, k));
        return b.flushers(flushers()).limits(limits()).build();
    }

    private <T> void readInto(EngineConfig.Builder b, ConfigKey<T> key) {
        value(key).ifPresent(v -> b.set(key, v));
    }

    /**
     * @param key a plain key
     * @param <T> its type
     * @return its value, parsed (not validated: the record holding it does that), if set and not blank
     * @throws ConfigException naming the key when the text does not parse
     */
    public <T> Optional<T> value(ConfigKey<T> key) {
        return value(key, "");
    }

    /**
     * @param key a plain key
     * @param <T> its type
     * @return its value if set and not blank, else its default (null when it has none)
     */
    public <T> T get(ConfigKey<T> key) {
        return value(key).orElseGet(key::defaultValue);
    }

    private <T> Optional<T> value(ConfigKey<T> key, String member) {
        return source.apply(key.key(member)).map(String::trim).filter(s -> !s.isEmpty()).map(v -> key.parse(member, v));
    }

    private List<FlusherConfig> flushers() {
        FlusherConfig fallback = FlusherConfig.defaults();
        List<FlusherConfig> out = new ArrayList<>();
        for (int i = 0; ; i++) {
            String m = String.valueOf(i);
            Optional<List<String>> queues = value(FLUSHER_QUEUES, m);
            Optional<Integer> maxBatch = value(FLUSHER_MAX_BATCH, m);
            Optional<Duration> maxDelay = value(FLUSHER_MAX_DELAY, m);
            Optional<Integer> parallelism = value(FLUSHER_PARALLELISM, m);
            if (queues.isEmpty() && maxBatch.isEmpty() && maxDelay.isEmpty() && parallelism.isEmpty()) {
                break;
            }
            out.add(new FlusherConfig(queues.orElse(fallback.queues()), maxBatch.orElse(fallback.maxBatch()),
                    maxDelay.orElse(fallback.maxDelay()), parallelism.orElse(fallback.parallelism())));
        }
        if (out.stream().noneMatch(f -> f.queues().contains("*"))) {
            out.add(fallback);  // queues no flusher names go to a default one
        }
        return out;
    }

    private LimitsConfig limits() {
        Map<String, LimitsConfig.RateLimit> rates = new LinkedHashMap<>();
        for (String n : members(RATE_LIMITS, names)) {
            double allowed = value(RATE_ALLOWED, n).orElseThrow(() ->
                    new ConfigException(RATE_ALLOWED.key(n), "is required for rate limit " + n));
            rates.put(n, new LimitsConfig.RateLimit(n, allowed, value(RATE_PERIOD, n).orElse(RATE_PERIOD.defaultValue()),
                    value(RATE_BURST, n).orElse(Math.max(1, allowed)), value(RATE_SHARDS, n).orElse(RATE_SHARDS.defaultValue())));
        }
        Map<String, LimitsConfig.Gate> gates = new LinkedHashMap<>();
        for (String n : members(CONCURRENCY_LIMITS, names)) {
            int limit = value(GATE_LIMIT, n).orElseThrow(() ->
                    new ConfigException(GATE_LIMIT.key(n), "is required for concurrency limit " + n));
            gates.put(n, new LimitsConfig.Gate(n, limit, value(GATE_SHARDS, n).orElse(GATE_SHARDS.defaultValue())));
        }
        return new LimitsConfig(rates, gates);
    }

    /** @return the members of {@code family} the names declare ({@code psp} of {@code gendurable.rate-limits.psp.allowed}), sorted */
    private static SortedSet<String> members(Family family, Iterable<String> names) {
        SortedSet<String> members = new TreeSet<>();
        for (String name : names) {
            if (name.startsWith(ConfigKey.PREFIX)) {
                Matcher m = ConfigCatalogue.pattern(family).matcher(name.substring(ConfigKey.PREFIX.length()));
                if (m.matches()) {
                    members.add(m.group(1));
                }
            }
        }
        return members;
    }
}
