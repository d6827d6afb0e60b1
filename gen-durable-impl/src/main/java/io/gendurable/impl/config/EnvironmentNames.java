package io.gendurable.impl.config;

import io.gendurable.impl.config.ConfigKey.Family;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
    private static final Map<String, String> PLAIN = ConfigKeys.plainNames().stream()
            .collect(Collectors.toUnmodifiableMap(EnvironmentNames::envForm, n -> n));
    private static final Map<Family, Pattern> FAMILIES = familyPatterns();

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
        Set<String> out = new LinkedHashSet<>();
        for (String name : environmentNames) {
            String env = envForm(name);
            if (!env.startsWith(ENV_PREFIX) || NOT_ENGINE_KEYS.contains(env)) {
                continue;
            }
            if (name.startsWith(ConfigKey.PREFIX) && ConfigKeys.isKnown(name.substring(ConfigKey.PREFIX.length()))) {
                out.add(name);  // spelled as a property
                continue;
            }
            // GENDURABLE_RATE_LIMITS_PSP_ALLOWED, or the dotted form SmallRye Config lists beside
            // it (gendurable.rate.limits.psp.allowed), or a misspelled property-style variable
            out.add(propertyName(env, env.substring(ENV_PREFIX.length()), otherNames));
        }
        return List.copyOf(out);
    }

    private static String propertyName(String variable, String rest, Iterable<String> otherNames) {
        String plain = PLAIN.get(rest);
        if (plain != null) {
            return ConfigKey.PREFIX + plain;
        }
        for (Map.Entry<Family, Pattern> f : FAMILIES.entrySet()) {
            Matcher m = f.getValue().matcher(rest);
            if (m.matches()) {
                String member = declared(f.getKey(), m.group(1), otherNames);
                String memberKey = ConfigKeys.members(f.getKey()).stream().filter(k -> envForm(k.memberName()).equals(m.group(2)))
                        .findFirst().orElseThrow().memberName();
                return ConfigKey.PREFIX + f.getKey().path(member) + "." + memberKey;
            }
        }
        throw new ConfigException(variable, "unknown key (an environment variable starting " + ENV_PREFIX
                + "; the engine's keys there are their names in upper case with _ for every other character, "
                + "e.g. GENDURABLE_LEASE_TTL for gendurable.lease-ttl); accepted: " + ConfigKeys.accepted()
                + "; not engine keys: " + NOT_ENGINE_KEYS.stream().sorted().toList());
    }

    /** @return the member another source declares with this environment form, else the form in lower case */
    private static String declared(Family family, String envMember, Iterable<String> otherNames) {
        Pattern keys = ConfigKeys.pattern(family);
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
        for (Family f : ConfigKeys.families()) {
            String path = envForm(f.path(MARKER));
            String member = f.memberRegex().contains("\\d") ? "([0-9]+)" : "([A-Z0-9_]+)";
            String keys = ConfigKeys.members(f).stream().map(k -> envForm(k.memberName())).collect(Collectors.joining("|"));
            out.put(f, Pattern.compile(Pattern.quote(path).replace(MARKER, "\\E" + member + "\\Q") + "_(" + keys + ")"));
        }
        return out;
    }
}
