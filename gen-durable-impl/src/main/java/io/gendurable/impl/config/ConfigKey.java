package io.gendurable.impl.config;

import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One {@code gendurable.*} key, declared once in {@link ConfigKeys}: its name, how its text
 * parses ({@link ValueType}), its default, the values it accepts (with the wording of the error
 * that names them), one line of documentation, and where its value sits in the record that holds
 * it. {@link ConfigReader} parses with it, the records of {@link EngineConfig} and
 * {@link LimitsConfig} validate with it, {@link EngineConfig#describe()} prints with it. A key
 * knows no record: where its value sits is the holding record's (see {@link KeyGetters}).
 *
 * <p>A key is plain ({@code lease-ttl}) or a member of a {@link Family} ({@code max-batch} of
 * {@code flushers[i]}, {@code allowed} of {@code rate-limits.<name>}).
 *
 * @param <T> the value's type
 */
public final class ConfigKey<T> {
    /** The prefix of every key. */
    public static final String PREFIX = "gendurable.";

    private final Family family;
    private final String name;
    private final ValueType<T> type;
    private final Supplier<T> defaultValue;
    private final Check<T> check;
    private final boolean held;
    private final String doc;

    ConfigKey(Family family, String name, ValueType<T> type, Supplier<T> defaultValue, Check<T> check,
              boolean held, String doc) {
        this.family = family;
        this.name = Objects.requireNonNull(name, "name");
        this.type = Objects.requireNonNull(type, "type");
        this.defaultValue = Objects.requireNonNull(defaultValue, "defaultValue");
        this.check = Objects.requireNonNull(check, "check");
        this.held = held;
        this.doc = Objects.requireNonNull(doc, "doc");
    }

    /**
     * A family of keys that repeats per member: {@code flushers[0].…}, {@code rate-limits.psp.…}.
     *
     * @param path        the family's part of a key, {@code %s} standing for the member ({@code flushers[%s]})
     * @param placeholder how the docs write the member ({@code i}, {@code <name>})
     * @param memberRegex the regular expression of the family's part, the member in group 1
     */
    public record Family(String path, String placeholder, String memberRegex) {
        /** @param member a member ({@code 0}, {@code psp}; empty when unknown) @return the family's part of its keys */
        public String path(String member) {
            return path.formatted(member);
        }

        /** @return the family's part as the docs write it: {@code flushers[i]}, {@code rate-limits.<name>} */
        public String template() {
            return path(placeholder);
        }
    }

    /**
     * The values a key accepts.
     *
     * @param <T> the value's type
     */
    @FunctionalInterface
    public interface Check<T> {
        /**
         * @param key    the key, for the message
         * @param member the family member, for the message ({@code ""} for a plain key)
         * @param value  the value
         * @throws ConfigException (or, for the schema, an IllegalArgumentException) naming the key
         */
        void check(ConfigKey<T> key, String member, T value);

        /** @param <T> the value's type @return a check that accepts anything */
        static <T> Check<T> any() {
            return (k, m, v) -> { };
        }

        /**
         * @param ok       whether a value is accepted (null is never passed to it: null is refused)
         * @param accepted what is accepted, for the message ({@code an integer of 1 or more})
         * @param <T>      the value's type
         * @return the check
         */
        static <T> Check<T> that(Predicate<T> ok, String accepted) {
            return (k, m, v) -> {
                if (v == null || !ok.test(v)) {
                    throw k.reject(m, v, accepted);
                }
            };
        }
    }

    /** @return the family, or null for a plain key */
    public Family family() {
        return family;
    }

    /** @return the name without the prefix, a member's as the docs write it ({@code flushers[i].max-batch}) */
    public String name() {
        return family == null ? name : family.template() + "." + name;
    }

    /** @return the name within its family ({@code max-batch}), or the name of a plain key */
    public String memberName() {
        return name;
    }

    /** @return the full key; for a family member with no member known, {@code gendurable.flushers[].max-batch} */
    public String key() {
        return key("");
    }

    /** @param member a member of the family ({@code 0}, {@code psp}) @return the full key of that member */
    public String key(String member) {
        return PREFIX + (family == null ? name : family.path(member) + "." + name);
    }

    /** @return how the key's text parses and prints */
    public ValueType<T> type() {
        return type;
    }

    /** @return the default, or null when there is none (a required key, or one with no value by default) */
    public T defaultValue() {
        return defaultValue.get();
    }

    /** @return the documentation line (the first sentence of the key's row in docs/configuration.md) */
    public String doc() {
        return doc;
    }

    /** @return whether a record of the engine holds this key's value (false for the container layer's keys) */
    public boolean held() {
        return held;
    }

    /**
     * @param member the family member, for the message ({@code ""} for a plain key)
     * @param text   the text read
     * @return the value
     * @throws ConfigException naming the key when the text does not parse
     */
    public T parse(String member, String text) {
        return type.parse(key(member), text);
    }

    /** @param value a value @return it, validated @throws ConfigException naming the key */
    public T check(T value) {
        return check("", value);
    }

    /** @param member the family member @param value a value @return it, validated @throws ConfigException naming the key */
    public T check(String member, T value) {
        check.check(this, member, value);
        return value;
    }

    /**
     * @param member   the family member ({@code ""} for a plain key)
     * @param value    the refused value
     * @param accepted what would be accepted
     * @return the exception to throw, naming the key
     */
    public ConfigException reject(String member, T value, String accepted) {
        return new ConfigException(key(member), type.format(value), accepted);
    }

    /** @param value a value @return it as the start-up line prints it */
    public String format(T value) {
        return type.format(value);
    }

    @Override
    public String toString() {
        return PREFIX + name();
    }
}
