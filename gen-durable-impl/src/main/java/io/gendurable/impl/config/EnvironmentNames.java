package io.gendurable.impl.config;

import io.gendurable.impl.config.ConfigKey.Family;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Environment variables as {@code gendurable.*} property names. MicroProfile Config finds a key's
 * value in the environment when asked for it by name ({@code gendurable.rate-limits.psp.allowed}
 * is read from {@code GENDURABLE_RATE_LIMITS_PSP_ALLOWED}), but it lists an environment variable
 * under its own name, so the engine could not discover a rate limit or gate declared there, nor
 * tell a misspelled variable from an unrelated one. This class maps each {@code GENDURABLE_*}
 * variable back onto the catalogue ({@link ConfigKeys}), the inverse of MicroProfile Config's
 * mapping (every character other than a letter or digit becomes {@code _}, then upper case):
 * <ul>
 *   <li>a plain key: {@code GENDURABLE_LEASE_TTL} is {@code gendurable.lease-ttl};</li>
 *   <li>a family member: {@code GENDURABLE_RATE_LIMITS_PSP_ALLOWED} declares the rate limit
 *       {@code psp}, {@code GENDURABLE_CONCURRENCY_LIMITS_STRIPE_LIMIT} the gate {@code stripe},
 *       {@code GENDURABLE_FLUSHERS_0__QUEUES} {@code flushers[0].queues}. The member is the
 *       name another source already declares whose environment form is the same (so
 *       {@code GENDURABLE_RATE_LIMITS_PSP_EU_ALLOWED} overrides a declared {@code psp-eu}), else
 *       the variable's part in lower case ({@code psp_eu});</li>
 *   <li>the project's own variables that are not engine keys ({@link #NOT_ENGINE_KEYS}: the
 *       Liberty {@code server.xml}'s and WildFly {@code configure.cli}'s DataSource and user variables, the test and benchmark
 *       databases) are skipped;</li>
 *   <li>a named engine's key: {@code GENDURABLE_ENGINES_BILLING_QUEUES} is
 *       {@code gendurable.engines.billing.queues}, the engine found among those listed by its
 *       environment form; {@link #clash} refuses lists where one variable would be two engines' key;</li>
 *   <li>any other {@code GENDURABLE_*} variable is a misspelled key and fails like a misspelled
 *       property, naming the variable.</li>
 * </ul>
 * A variable already spelled as a known property ({@code gendurable.rate-limits.psp-eu.allowed},
 * legal in Kubernetes and {@code env}) is taken as it is. Variables that do not start with
 * {@code GENDURABLE_} in their environment form are not the engine's.
 */
public final class EnvironmentNames {
    /** The environment variables of this project that are not engine keys. */
    public static final Set<String> NOT_ENGINE_KEYS = Set.of(
            "GENDURABLE_DB_URL", "GENDURABLE_DB_HOST", "GENDURABLE_DB_PORT", "GENDURABLE_DB_NAME",
            "GENDURABLE_DB_USER", "GENDURABLE_DB_PASSWORD",
            "GENDURABLE_ADMIN_PASSWORD", "GENDURABLE_VIEWER_PASSWORD",
            "GENDURABLE_TEST_DB_URL", "GENDURABLE_TEST_REDIS_URL", "GENDURABLE_TEST_PGBOUNCER", "GENDURABLE_BENCH_DB_URL");

    private static final String ENV_PREFIX = envForm(ConfigKey.PREFIX);
    private static final String MARKER = "MEMBER";
    private static final Map<String, String> PLAIN = ConfigCatalogue.plainNames().stream()
            .collect(Collectors.toUnmodifiableMap(EnvironmentNames::envForm, n -> n));
    private static final Map<Family, Pattern> FAMILIES = familyPatterns();
    /** The environment prefix of a named engine's variables. */
    private static final String ENGINES_PREFIX = ENV_PREFIX + envForm(ConfigKeys.ENGINE_NAMESPACE);
    private static final List<String> SAMPLES = samples();

    private EnvironmentNames() {
    }

    /**
     * @param name a property name
     * @return the environment variable MicroProfile Config reads it from: letters and digits kept,
     * every other character {@code _}, upper case
     */
    public static String envForm(String name) {
        return name.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }

    /**
     * @param environmentNames the names an environment source lists (as set, or as the config
     *                         implementation reports them)
     * @param otherNames       the property names of every other source: the members they declare
     *                         win over a lower-cased guess
     * @return the {@code gendurable.*} property names the environment sets, for the unknown-key
     * check and the discovery of rate limits, gates and flushers
     * @throws ConfigException naming a {@code GENDURABLE_*} variable that is no key
     */
    public static List<String> propertyNames(Iterable<String> environmentNames, Iterable<String> otherNames) {
        return propertyNames(environmentNames, otherNames, List.of());
    }

    /**
     * As {@link #propertyNames(Iterable, Iterable)}, with named engines: a variable
     * {@code GENDURABLE_ENGINES_<NAME>_<KEY>} is the key {@code <KEY>} of the listed engine whose
     * environment form ({@link #envForm}: {@code billing-eu} is {@code BILLING_EU}) is {@code <NAME>}.
     *
     * @param environmentNames the names an environment source lists
     * @param otherNames       the property names of every other source
     * @param engines          the named engines of {@code gendurable.engines}, as listed
     * @return the {@code gendurable.*} property names the environment sets
     * @throws ConfigException naming a {@code GENDURABLE_*} variable that is no key (of the default
     *                         engine, or of a listed named engine)
     */
    public static List<String> propertyNames(Iterable<String> environmentNames, Iterable<String> otherNames,
                                             List<String> engines) {
        Set<String> out = new LinkedHashSet<>();
        for (String name : environmentNames) {
            String env = envForm(name);
            if (!env.startsWith(ENV_PREFIX) || NOT_ENGINE_KEYS.contains(env)) {
                continue;
            }
            if (name.startsWith(ConfigKey.PREFIX) && ConfigCatalogue.isKnown(name.substring(ConfigKey.PREFIX.length()))
                    && listedEngineOrPlain(name, engines)) {
                out.add(name);  // spelled as a property
                continue;
            }
            if (env.startsWith(ENGINES_PREFIX)) {
                out.add(namedEngineKey(env, otherNames, engines));
                continue;
            }
            // GENDURABLE_RATE_LIMITS_PSP_ALLOWED, or the dotted form SmallRye Config lists beside
            // it (gendurable.rate.limits.psp.allowed), or a misspelled property-style variable
            out.add(propertyName(env, env.substring(ENV_PREFIX.length()), otherNames));
        }
        return List.copyOf(out);
    }

    /** @return whether a known property name is a plain key, or a key of a listed engine (not SmallRye's dotted guess of another) */
    private static boolean listedEngineOrPlain(String name, List<String> engines) {
        String all = ConfigKey.PREFIX + ConfigKeys.ENGINE_NAMESPACE;
        if (!name.startsWith(all)) {
            return true;
        }
        int dot = name.indexOf('.', all.length());
        return dot > 0 && engines.contains(name.substring(all.length(), dot));
    }

    private static String propertyName(String variable, String rest, Iterable<String> otherNames) {
        return key(rest, otherNames).map(k -> ConfigKey.PREFIX + k).orElseThrow(() -> new ConfigException(variable,
                "unknown key (an environment variable starting " + ENV_PREFIX
                + "; the engine's keys there are their names in upper case with _ for every other character, "
                + "e.g. GENDURABLE_LEASE_TTL for gendurable.lease-ttl); accepted: " + ConfigCatalogue.accepted()
                + "; not engine keys: " + NOT_ENGINE_KEYS.stream().sorted().toList()));
    }

    /**
     * @param rest       a variable's environment form after {@code GENDURABLE_} (or after a named engine's part)
     * @param otherNames the property names declaring family members (for their spelling)
     * @return the key it sets, without prefix, or empty when none
     */
    private static Optional<String> key(String rest, Iterable<String> otherNames) {
        String plain = PLAIN.get(rest);
        if (plain != null) {
            return Optional.of(plain);
        }
        for (Map.Entry<Family, Pattern> f : FAMILIES.entrySet()) {
            Matcher m = f.getValue().matcher(rest);
            if (m.matches()) {
                String member = declared(f.getKey(), m.group(1), otherNames);
                String memberKey = ConfigCatalogue.members(f.getKey()).stream().filter(k -> envForm(k.memberName()).equals(m.group(2)))
                        .findFirst().orElseThrow().memberName();
                return Optional.of(f.getKey().path(member) + "." + memberKey);
            }
        }
        return Optional.empty();
    }

    /** @return the key a named engine's variable sets under that engine's namespace (no prefix), or empty */
    private static Optional<String> engineKey(String rest, Iterable<String> engineNames) {
        return key(rest, engineNames).filter(k -> !k.equals(ConfigKeys.ENGINES.name()));
    }

    /**
     * @param env        a variable's environment form, starting {@code GENDURABLE_ENGINES_}
     * @param otherNames the property names of every other source
     * @param engines    the listed named engines
     * @return the property it sets: {@code gendurable.engines.<name>.<key>}
     * @throws ConfigException naming the variable when it is the key of no listed engine, or of two
     */
    private static String namedEngineKey(String env, Iterable<String> otherNames, List<String> engines) {
        String rest = env.substring(ENGINES_PREFIX.length());
        List<String> found = new ArrayList<>();
        for (String engine : engines) {
            String own = envForm(engine) + "_";
            if (rest.startsWith(own)) {
                engineKey(rest.substring(own.length()), scoped(otherNames, engine))
                        .ifPresent(k -> found.add(ConfigKey.PREFIX + ConfigKeys.ENGINE_NAMESPACE + engine + "." + k));
            }
        }
        if (found.size() == 1) {
            return found.get(0);
        }
        if (found.size() > 1) {
            throw new ConfigException(env, "sets " + String.join(" and ", found) + "; give the engines names whose "
                    + "environment forms do not overlap");
        }
        throw new ConfigException(env, "unknown key (a named engine's variable is " + ENGINES_PREFIX
                + "<NAME>_<KEY>: <NAME> the engine's name and <KEY> the key, in upper case with _ for every other character, "
                + "e.g. GENDURABLE_ENGINES_BILLING_LEASE_TTL for gendurable.engines.billing.lease-ttl); engines: "
                + (engines.isEmpty() ? "none (gendurable.engines lists none)" : engines.stream()
                .map(e -> e + " (" + ENGINES_PREFIX + envForm(e) + "_…)").collect(Collectors.joining(", ")))
                + "; accepted keys: " + ConfigCatalogue.accepted());
    }

    /** @return the names under an engine's namespace, as plain {@code gendurable.*} names (its declared members) */
    private static List<String> scoped(Iterable<String> names, String engine) {
        String prefix = ConfigKey.PREFIX + ConfigKeys.ENGINE_NAMESPACE + engine + ".";
        List<String> out = new ArrayList<>();
        names.forEach(n -> {
            if (n.startsWith(prefix)) {
                out.add(ConfigKey.PREFIX + n.substring(prefix.length()));
            }
        });
        return out;
    }

    /**
     * The rule that keeps a named engine's variables unambiguous. MicroProfile Config reads
     * {@code gendurable.engines.<name>.<key>} from {@code GENDURABLE_ENGINES_<NAME>_<KEY>}, where
     * {@code -} and {@code _} both become {@code _}: two engines clash when one variable would be a
     * key of both, because their names have one environment form ({@code billing-eu},
     * {@code billing_eu}), or because one's form continues the other's with the start of a key
     * ({@code billing} and {@code billing-max}: {@code GENDURABLE_ENGINES_BILLING_MAX_POLL_INTERVAL} is
     * billing's {@code max-poll-interval} and billing-max's {@code poll-interval}).
     *
     * @param engines the named engines
     * @return a description of the first clash (the two names and a variable both would read), or empty
     */
    public static Optional<String> clash(List<String> engines) {
        for (String a : engines) {
            for (String b : engines) {
                if (a.equals(b)) {
                    continue;
                }
                String ea = envForm(a);
                String eb = envForm(b);
                if (ea.equals(eb)) {
                    return Optional.of(a + " and " + b + " have one environment form, " + ea + " (both read "
                            + ENGINES_PREFIX + ea + "_QUEUES)");
                }
                if (eb.startsWith(ea + "_")) {
                    String between = eb.substring(ea.length() + 1);
                    for (String sample : SAMPLES) {
                        Optional<String> ofA = engineKey(between + "_" + sample, List.of());
                        if (ofA.isPresent()) {
                            return Optional.of(a + " and " + b + " overlap: " + ENGINES_PREFIX + eb + "_" + sample
                                    + " would be " + a + "'s " + ofA.get() + " and " + b + "'s "
                                    + engineKey(sample, List.of()).orElseThrow());
                        }
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** @return one environment form per key a named engine reads (a family's with a sample member) */
    private static List<String> samples() {
        List<String> out = new ArrayList<>();
        PLAIN.forEach((env, key) -> {
            if (!key.equals(ConfigKeys.ENGINES.name())) {
                out.add(env);
            }
        });
        for (Family f : ConfigCatalogue.families()) {
            String member = f.memberRegex().contains("\\d") ? "0" : "X";
            ConfigCatalogue.members(f).forEach(k -> out.add(envForm(f.path(member)) + "_" + envForm(k.memberName())));
        }
        out.sort(null);
        return List.copyOf(out);
    }

    /** @return the member another source declares with this environment form, else the form in lower case */
    private static String declared(Family family, String envMember, Iterable<String> otherNames) {
        Pattern keys = ConfigCatalogue.pattern(family);
        for (String name : otherNames) {
            if (name.startsWith(ConfigKey.PREFIX)) {
                Matcher m = keys.matcher(name.substring(ConfigKey.PREFIX.length()));
                if (m.matches() && envForm(m.group(1)).equals(envMember)) {
                    return m.group(1);
                }
            }
        }
        return envMember.toLowerCase(Locale.ROOT);
    }

    /** @return per family, the pattern of its environment forms without prefix: the member in group 1, the member key in group 2 */
    private static Map<Family, Pattern> familyPatterns() {
        Map<Family, Pattern> out = new LinkedHashMap<>();
        for (Family f : ConfigCatalogue.families()) {
            String path = envForm(f.path(MARKER));
            String member = f.memberRegex().contains("\\d") ? "([0-9]+)" : "([A-Z0-9_]+)";
            String keys = ConfigCatalogue.members(f).stream().map(k -> envForm(k.memberName())).collect(Collectors.joining("|"));
            out.put(f, Pattern.compile(Pattern.quote(path).replace(MARKER, "\\E" + member + "\\Q") + "_(" + keys + ")"));
        }
        return out;
    }
}
