package io.gendurable.impl.cdi;

import java.util.Optional;
import java.util.function.Function;

/**
 * Where the configuration is read: a lookup of full keys and every property name the source knows.
 *
 * @param lookup looks up a full key; empty when unset
 * @param names  every property name the source knows (unknown {@code gendurable.} keys fail)
 */
record SettingsSource(Function<String, Optional<String>> lookup, Iterable<String> names) {
}
