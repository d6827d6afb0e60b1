package io.gendurable.impl.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Where the values of a list of keys sit in the record that holds them. The catalogue
 * ({@link ConfigKeys}) knows no record; {@link EngineConfig} keeps one of these per holding record,
 * for {@link EngineConfig#toBuilder()} and {@link EngineConfig#describe()}. {@link #complete()}
 * fails when a key of the list has no getter, at class initialisation.
 *
 * @param <O> the holding record
 */
final class KeyGetters<O> {
    private final List<? extends ConfigKey<?>> keys;
    private final Map<ConfigKey<?>, Function<O, ?>> getters = new HashMap<>();

    /** @param keys the keys the record holds, in the catalogue's order */
    KeyGetters(List<? extends ConfigKey<?>> keys) {
        this.keys = List.copyOf(keys);
    }

    /** @param key one of the keys @param getter where its value sits @param <T> its type @return this */
    <T> KeyGetters<O> with(ConfigKey<T> key, Function<O, T> getter) {
        if (!keys.contains(key)) {
            throw new IllegalArgumentException(key + " is not one of the keys " + keys);
        }
        getters.put(key, getter);
        return this;
    }

    /** @return this, every key having a getter @throws IllegalStateException naming the keys without one */
    KeyGetters<O> complete() {
        List<? extends ConfigKey<?>> missing = keys.stream().filter(k -> !getters.containsKey(k)).toList();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("no getter for " + missing);
        }
        return this;
    }

    /** @return the keys, in the catalogue's order */
    List<? extends ConfigKey<?>> keys() {
        return keys;
    }

    /** @param key one of the keys @param owner the record @param <T> its type @return the value */
    @SuppressWarnings("unchecked")
    <T> T get(ConfigKey<T> key, O owner) {
        return (T) getters.get(key).apply(owner);
    }

    /** @param key one of the keys @param member the family member ({@code ""} for a plain key) @param owner the record @return {@code key=value} */
    <T> String describe(ConfigKey<T> key, String member, O owner) {
        return key.key(member).substring(ConfigKey.PREFIX.length()) + "=" + key.format(get(key, owner));
    }
}
