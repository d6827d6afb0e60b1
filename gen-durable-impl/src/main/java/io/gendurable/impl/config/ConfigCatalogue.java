package io.gendurable.impl.config;

import io.gendurable.impl.config.ConfigKey.Family;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static io.gendurable.impl.config.ConfigKeys.CONCURRENCY_LIMITS;
import static io.gendurable.impl.config.ConfigKeys.ENGINES;
import static io.gendurable.impl.config.ConfigKeys.ENGINE_NAMESPACE;
import static io.gendurable.impl.config.ConfigKeys.FLUSHERS;
import static io.gendurable.impl.config.ConfigKeys.RATE_LIMITS;

/**
 * Views of the catalogue declared in {@link ConfigKeys}: every key, the plain keys
 * {@link EngineConfig} holds, the families and their members, and which names this release
 * accepts ({@link ConfigReader} and {@link EnvironmentNames} refuse the others).
 */
public final class ConfigCatalogue {
    private static final List<ConfigKey<?>> KEYS = ConfigKeys.declared();
    private static final List<Family> FAMILIES = List.of(FLUSHERS, RATE_LIMITS, CONCURRENCY_LIMITS);
    private static final List<ConfigKey<?>> ENGINE = KEYS.stream().filter(k -> k.family() == null && k.held()).toList();
    private static final Set<String> PLAIN = Collections.unmodifiableSet(new TreeSet<>(KEYS.stream()
            .filter(k -> k.family() == null).map(ConfigKey::name).toList()));
    private static final Map<Family, Pattern> PATTERNS = FAMILIES.stream().collect(Collectors.toUnmodifiableMap(f -> f,
            f -> Pattern.compile(f.memberRegex() + "\\.(" + members(f).stream().map(ConfigKey::memberName)
                    .collect(Collectors.joining("|")) + ")")));

    private ConfigCatalogue() {
    }

    /** @return every key, plain and family members, in declaration order */
    public static List<ConfigKey<?>> all() {
        return KEYS;
    }

    /** @return the plain keys {@link EngineConfig} holds, in declaration order (the order of the start-up line) */
    public static List<ConfigKey<?>> engineKeys() {
        return ENGINE;
    }

    /** @return the families of keys */
    public static List<Family> families() {
        return FAMILIES;
    }

    /** @param family a family @return its member keys, in declaration order */
    public static List<ConfigKey<?>> members(Family family) {
        return KEYS.stream().filter(k -> k.family() == family).toList();
    }

    /** @return the names of the plain keys, without prefix, sorted */
    public static Set<String> plainNames() {
        return PLAIN;
    }

    /**
     * @param family a family
     * @return the pattern of its keys without prefix: the member in group 1, the member key's name in group 2
     */
    public static Pattern pattern(Family family) {
        return PATTERNS.get(family);
    }

    /** @param name a key without prefix @return whether this release reads it */
    public static boolean isKnown(String name) {
        if (name.startsWith(ENGINE_NAMESPACE)) {
            int dot = name.indexOf('.', ENGINE_NAMESPACE.length());
            String key = dot < 0 ? "" : name.substring(dot + 1);
            return !key.startsWith(ENGINE_NAMESPACE) && !key.equals(ENGINES.name()) && isKnown(key);  // engines.<name>.<key>
        }
        return PLAIN.contains(name) || FAMILIES.stream().anyMatch(f -> PATTERNS.get(f).matcher(name).matches());
    }

    /** @return every accepted key, for the message that refuses an unknown one */
    static String accepted() {
        List<String> families = FAMILIES.stream().map(f -> f.template() + "." + members(f).stream()
                .map(ConfigKey::memberName).collect(Collectors.joining("|"))).toList();
        return PLAIN + ", " + String.join(", ", families.subList(0, families.size() - 1)) + " and "
                + families.get(families.size() - 1) + " (all prefixed " + ConfigKey.PREFIX + ")";
    }
}
