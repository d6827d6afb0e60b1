package io.gendurable.impl.cdi.metrics;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;

import java.util.function.Function;

/** Reads what a lookup bean (added by the extension when its API is present) found in the container. */
final class ContainerLookup {
    private ContainerLookup() {
    }

    /**
     * Selected through {@code CDI.current()} by the lookup class, not by the API type: a select of
     * the API type has no injection point, and some producers (SmallRye Metrics on Open Liberty)
     * throw on that.
     *
     * @param lookup the lookup bean's class
     * @param read   what to take from it
     * @return what {@code read} returns, or null when the lookup bean is not resolvable
     */
    static <L, R> R read(Class<L> lookup, Function<L, R> read) {
        Instance<L> found = CDI.current().select(lookup);
        return found.isResolvable() ? read.apply(found.get()) : null;
    }
}
