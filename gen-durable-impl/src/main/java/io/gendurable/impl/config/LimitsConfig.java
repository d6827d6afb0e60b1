package io.gendurable.impl.config;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The configured admission limits: named token-bucket rate limits and named concurrency gates.
 * A concurrency key whose name (the part before ':') is a gate is a semaphore of that limit;
 * any other key is K = 1. Unconfigured rate-limit names stall their rows (and are counted).
 *
 * @param rateLimits        name → rate limit
 * @param concurrencyLimits name → gate
 */
public record LimitsConfig(Map<String, RateLimit> rateLimits, Map<String, Gate> concurrencyLimits) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_\\-]{1,100}");

    /**
     * A token bucket: {@code allowed} starts per {@code period}, bursting to {@code burst},
     * split into {@code shards} counters that concurrent pickers lock independently.
     */
    public record RateLimit(String name, double allowed, Duration period, double burst, int shards) {
        public RateLimit {
            requireName("gendurable.rate-limits." + name, name);
            String k = "gendurable.rate-limits." + name + ".";
            if (!(allowed > 0)) {
                throw new ConfigException(k + "allowed", String.valueOf(allowed), "a positive number of starts per period");
            }
            if (period == null || period.toMillis() < 1) {
                throw new ConfigException(k + "period", String.valueOf(period), "a duration of at least 1 ms");
            }
            if (!(burst >= 1)) {
                throw new ConfigException(k + "burst", String.valueOf(burst), "a number of 1 or more (default: allowed, at least 1)");
            }
            if (shards < 1 || shards > burst) {
                throw new ConfigException(k + "shards", String.valueOf(shards), "an integer from 1 to burst (" + burst + ")");
            }
        }

        /** @return tokens added per second, across all shards */
        public double perSecond() {
            return allowed * 1000.0 / period.toMillis();
        }
    }

    /** A gate: at most {@code limit} executing per key, counted in {@code shards} counters. */
    public record Gate(String name, int limit, int shards) {
        public Gate {
            requireName("gendurable.concurrency-limits." + name, name);
            String k = "gendurable.concurrency-limits." + name + ".";
            if (limit < 1) {
                throw new ConfigException(k + "limit", String.valueOf(limit), "an integer of 1 or more");
            }
            if (shards < 1 || shards > limit) {
                throw new ConfigException(k + "shards", String.valueOf(shards), "an integer from 1 to limit (" + limit + ")");
            }
        }

        /** @param shard a shard index @return its share of the limit (the remainder goes to the first shards) */
        public int shardCapacity(int shard) {
            return limit / shards + (shard < limit % shards ? 1 : 0);
        }
    }

    /** Copies the maps. */
    public LimitsConfig {
        rateLimits = Collections.unmodifiableMap(new LinkedHashMap<>(rateLimits));
        concurrencyLimits = Collections.unmodifiableMap(new LinkedHashMap<>(concurrencyLimits));
    }

    /** @return no limits */
    public static LimitsConfig none() {
        return new LimitsConfig(Map.of(), Map.of());
    }

    /** @param key a concurrency or rate-limit key ({@code name} or {@code name:partition}) @return its name */
    public static String nameOf(String key) {
        int colon = key.indexOf(':');
        return colon < 0 ? key : key.substring(0, colon);
    }

    /** @param key a concurrency key @return its gate, or null when its name is not a configured gate (K = 1) */
    public Gate gateFor(String key) {
        return key == null ? null : concurrencyLimits.get(nameOf(key));
    }

    /** @param rateKey a rate-limit key @return its rate limit, or null when the name is not configured */
    public RateLimit rateFor(String rateKey) {
        return rateKey == null ? null : rateLimits.get(nameOf(rateKey));
    }

    /** @return whether anything is configured */
    public boolean isEmpty() {
        return rateLimits.isEmpty() && concurrencyLimits.isEmpty();
    }

    private static void requireName(String key, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new ConfigException(key, String.valueOf(name), "a name of letters, digits, '_' or '-' (no '.' and no ':')");
        }
    }
}
