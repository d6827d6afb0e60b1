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
     * split into {@code shards} counters that concurrent claimers lock independently.
     */
    public record RateLimit(String name, double allowed, Duration period, double burst, int shards) {
        /** Validates the name and the keys (declared in {@link ConfigKeys}), and the shards against the burst. */
        public RateLimit {
            requireName(ConfigKeys.RATE_LIMITS, name);
            ConfigKeys.RATE_ALLOWED.check(name, allowed);
            ConfigKeys.RATE_PERIOD.check(name, period);
            ConfigKeys.RATE_BURST.check(name, burst);
            if (shards < 1 || shards > burst) {
                throw ConfigKeys.RATE_SHARDS.reject(name, shards, "an integer from 1 to burst (" + burst + ")");
            }
        }

        /** @return tokens added per second, across all shards */
        public double perSecond() {
            return allowed * 1000.0 / period.toMillis();
        }
    }

    /** A gate: at most {@code limit} executing per key, counted in {@code shards} counters. */
    public record Gate(String name, int limit, int shards) {
        /** Validates the name and the keys (declared in {@link ConfigKeys}), and the shards against the limit. */
        public Gate {
            requireName(ConfigKeys.CONCURRENCY_LIMITS, name);
            ConfigKeys.GATE_LIMIT.check(name, limit);
            if (shards < 1 || shards > limit) {
                throw ConfigKeys.GATE_SHARDS.reject(name, shards, "an integer from 1 to limit (" + limit + ")");
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

    private static void requireName(ConfigKey.Family family, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new ConfigException(ConfigKey.PREFIX + family.path(String.valueOf(name)), String.valueOf(name),
                    "a name of letters, digits, '_' or '-' (no '.' and no ':')");
        }
    }
}
