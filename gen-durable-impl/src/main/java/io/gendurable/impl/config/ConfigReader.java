package io.gendurable.impl.config;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the {@code gendurable.*} keys from any source (MicroProfile Config in a container, a
 * map in tests) into a validated {@link EngineConfig}. Every bad value fails with the key, the
 * value and what is accepted; an unknown {@code gendurable.} key fails too (a typo would
 * otherwise silently keep a default).
 */
public final class ConfigReader {
    /** Every key this release reads, without the {@code gendurable.} prefix ({@code flushers[i].…} aside). */
    public static final Set<String> KEYS = Set.of(
            "node-id", "queues", "lease-ttl", "heartbeat-interval", "poll-interval", "max-poll-interval",
            "prefetch", "min-demand", "drain-timeout", "reaper.enabled", "reaper.interval", "reaper.batch",
            "gc.enabled", "gc.interval", "gc.retention", "gc.batch", "schema", "migrate-at-start",
            "datasource", "jdbc.url", "jdbc.user", "jdbc.password", "executor", "scheduled-executor",
            "poke", "poke.window", "await.tick", "jta-datasource", "max-value-bytes");
    private static final Pattern FLUSHER_KEY = Pattern.compile("flushers\\[(\\d+)]\\.(queues|max-batch|max-delay|parallelism)");
    private static final Pattern RATE_KEY = Pattern.compile("rate-limits\\.([^.]+)\\.(allowed|period|burst|shards)");
    private static final Pattern GATE_KEY = Pattern.compile("concurrency-limits\\.([^.]+)\\.(limit|shards)");
    private static final String PREFIX = "gendurable.";

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
     * Fails on any {@code gendurable.} key this release does not read.
     *
     * @param names every property name the source knows
     */
    public static void rejectUnknownKeys(Iterable<String> names) {
        java.util.SortedSet<Integer> flusherIndexes = new TreeSet<>();
        for (String name : names) {
            if (name.startsWith(PREFIX)) {
                Matcher m = FLUSHER_KEY.matcher(name.substring(PREFIX.length()));
                if (m.matches()) {
                    flusherIndexes.add(Integer.parseInt(m.group(1)));
                }
            }
            if (!name.startsWith(PREFIX)) {
                continue;
            }
            String k = name.substring(PREFIX.length());
            if (!KEYS.contains(k) && !FLUSHER_KEY.matcher(k).matches() && !RATE_KEY.matcher(k).matches()
                    && !GATE_KEY.matcher(k).matches()) {
                throw new ConfigException(name, "unknown key; accepted: " + new TreeSet<>(KEYS)
                        + ", flushers[i].queues|max-batch|max-delay|parallelism, rate-limits.<name>.allowed|period|burst|shards"
                        + " and concurrency-limits.<name>.limit|shards (all prefixed gendurable.)");
            }
        }
        int expected = 0;
        for (int i : flusherIndexes) {
            if (i != expected) {
                throw new ConfigException(PREFIX + "flushers[" + i + "]", "flushers numbered 0, 1, 2… without gaps "
                        + "(flushers[" + expected + "] is missing, so flushers[" + i + "] would be ignored)");
            }
            expected++;
        }
    }

    /** @return the validated configuration (unknown keys and flusher numbering gaps fail too) */
    public EngineConfig read() {
        rejectUnknownKeys(names);
        EngineConfig d = EngineConfig.defaults();
        Map<String, Integer> queues = string("queues").map(v -> parseQueues("gendurable.queues", v)).orElse(d.queues());
        EngineConfig.ReaperConfig reaper = new EngineConfig.ReaperConfig(
                bool("reaper.enabled").orElse(d.reaper().enabled()),
                duration("reaper.interval").orElse(d.reaper().interval()),
                integer("reaper.batch").orElse(d.reaper().batch()));
        EngineConfig.GcConfig gc = new EngineConfig.GcConfig(
                bool("gc.enabled").orElse(d.gc().enabled()),
                duration("gc.interval").orElse(d.gc().interval()),
                duration("gc.retention").orElse(d.gc().retention()),
                integer("gc.batch").orElse(d.gc().batch()));
        return new EngineConfig(
                string("node-id").orElse(d.nodeId()),
                queues,
                duration("lease-ttl").orElse(d.leaseTtl()),
                duration("heartbeat-interval").orElse(d.heartbeatInterval()),
                duration("poll-interval").orElse(d.pollInterval()),
                duration("max-poll-interval").orElse(d.maxPollInterval()),
                integer("prefetch").orElse(d.prefetch()),
                integer("min-demand").orElse(d.minDemand()),
                duration("drain-timeout").orElse(d.drainTimeout()),
                reaper, gc, flushers(d.flushers().get(0)),
                string("schema").orElse(d.schema()),
                bool("migrate-at-start").orElse(d.migrateAtStart()),
                string("poke").map(ConfigReader::pokeTransport).orElse(d.poke()),
                duration("poke.window").orElse(d.pokeWindow()),
                duration("await.tick").orElse(d.awaitTick()),
                limits(),
                integer("max-value-bytes").orElse(d.maxValueBytes()));
    }

    private LimitsConfig limits() {
        Set<String> rateNames = new java.util.TreeSet<>();
        Set<String> gateNames = new java.util.TreeSet<>();
        for (String name : names) {
            if (!name.startsWith(PREFIX)) {
                continue;
            }
            Matcher r = RATE_KEY.matcher(name.substring(PREFIX.length()));
            if (r.matches()) {
                rateNames.add(r.group(1));
            }
            Matcher g = GATE_KEY.matcher(name.substring(PREFIX.length()));
            if (g.matches()) {
                gateNames.add(g.group(1));
            }
        }
        Map<String, LimitsConfig.RateLimit> rates = new LinkedHashMap<>();
        for (String n : rateNames) {
            String p = "rate-limits." + n + ".";
            double allowed = number(p + "allowed").orElseThrow(() ->
                    new ConfigException(PREFIX + p + "allowed", "is required for rate limit " + n));
            Duration period = duration(p + "period").orElse(Duration.ofSeconds(1));
            rates.put(n, new LimitsConfig.RateLimit(n, allowed, period, number(p + "burst").orElse(Math.max(1, allowed)),
                    integer(p + "shards").orElse(1)));
        }
        Map<String, LimitsConfig.Gate> gates = new LinkedHashMap<>();
        for (String n : gateNames) {
            String p = "concurrency-limits." + n + ".";
            int limit = integer(p + "limit").orElseThrow(() ->
                    new ConfigException(PREFIX + p + "limit", "is required for concurrency limit " + n));
            gates.put(n, new LimitsConfig.Gate(n, limit, integer(p + "shards").orElse(1)));
        }
        return new LimitsConfig(rates, gates);
    }

    private Optional<Double> number(String key) {
        return string(key).map(v -> {
            try {
                double d = Double.parseDouble(v);
                if (Double.isNaN(d) || Double.isInfinite(d)) {
                    throw new NumberFormatException();
                }
                return d;
            } catch (NumberFormatException e) {
                throw new ConfigException(PREFIX + key, v, "a number");
            }
        });
    }

    private List<EngineConfig.FlusherConfig> flushers(EngineConfig.FlusherConfig fallback) {
        List<EngineConfig.FlusherConfig> out = new ArrayList<>();
        for (int i = 0; ; i++) {
            String p = "flushers[" + i + "].";
            Optional<String> queues = string(p + "queues");
            Optional<Integer> maxBatch = integer(p + "max-batch");
            Optional<Duration> maxDelay = duration(p + "max-delay");
            Optional<Integer> parallelism = integer(p + "parallelism");
            if (queues.isEmpty() && maxBatch.isEmpty() && maxDelay.isEmpty() && parallelism.isEmpty()) {
                break;
            }
            List<String> names = queues.map(ConfigReader::splitList).orElse(List.of("*"));
            out.add(new EngineConfig.FlusherConfig(names, maxBatch.orElse(fallback.maxBatch()),
                    maxDelay.orElse(fallback.maxDelay()), parallelism.orElse(fallback.parallelism())));
        }
        if (out.stream().noneMatch(f -> f.queues().contains("*"))) {
            out.add(fallback);  // queues no flusher names go to a default one
        }
        return out;
    }

    private static EngineConfig.PokeTransport pokeTransport(String v) {
        return switch (v.toLowerCase(java.util.Locale.ROOT)) {
            case "local" -> EngineConfig.PokeTransport.LOCAL;
            case "postgres" -> EngineConfig.PokeTransport.POSTGRES;
            default -> throw new ConfigException(PREFIX + "poke", v, "local or postgres");
        };
    }

    /** @return the JNDI name of the engine's DataSource (default {@code jdbc/gendurable}) */
    public String datasource() {
        return string("datasource").orElse("jdbc/gendurable");
    }

    /** @return the raw value of a key (without prefix), if set and not blank */
    public Optional<String> string(String key) {
        return source.apply(PREFIX + key).map(String::trim).filter(s -> !s.isEmpty());
    }

    private Optional<Duration> duration(String key) {
        return string(key).map(v -> Durations.parse(PREFIX + key, v));
    }

    private Optional<Integer> integer(String key) {
        return string(key).map(v -> {
            try {
                return Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new ConfigException(PREFIX + key, v, "an integer");
            }
        });
    }

    private Optional<Boolean> bool(String key) {
        return string(key).map(v -> switch (v.toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new ConfigException(PREFIX + key, v, "true or false");
        });
    }

    /**
     * @param key   the key, for messages
     * @param value {@code name:concurrency} pairs separated by commas ({@code default:10,checkout:5}), or {@code none}
     * @return queue → concurrency, in the given order
     */
    public static Map<String, Integer> parseQueues(String key, String value) {
        Map<String, Integer> out = new LinkedHashMap<>();
        if (value.trim().equalsIgnoreCase("none")) {
            return out;  // a node that only inserts and signals runs no scheduler
        }
        Pattern pair = Pattern.compile("\\s*([A-Za-z0-9_.\\-]+)\\s*:\\s*(-?\\d+)\\s*");
        for (String part : value.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            Matcher m = pair.matcher(part);
            if (!m.matches()) {
                throw new ConfigException(key, value, "name:concurrency pairs separated by commas, e.g. default:10,checkout:5");
            }
            int concurrency;
            try {
                concurrency = Integer.parseInt(m.group(2));
            } catch (NumberFormatException e) {
                throw new ConfigException(key, value, "a concurrency that fits an int");
            }
            if (concurrency < 1) {
                throw new ConfigException(key, value, "a concurrency of 1 or more for queue " + m.group(1));
            }
            if (out.put(m.group(1), concurrency) != null) {
                throw new ConfigException(key, value, "each queue once (" + m.group(1) + " appears twice)");
            }
        }
        return out;
    }

    private static List<String> splitList(String v) {
        return java.util.Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    /** @return the host name, the default node id */
    public static String defaultNodeId() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                host = "node";
            }
        }
        return host.length() > 100 ? host.substring(0, 100) : host;
    }
}
