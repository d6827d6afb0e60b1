package io.gendurable.impl.cdi.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

/**
 * Obtains the application's Micrometer {@link MeterRegistry} (WildFly's {@code micrometer}
 * subsystem produces one per deployment) through an injected {@link Instance}, as
 * {@link MetricRegistryLookup} does for MicroProfile Metrics.
 *
 * <p>Not a discovered bean (no bean-defining annotation): {@link io.gendurable.impl.cdi.GenDurableExtension} adds it only
 * when Micrometer is on the class path, so applications without it are unaffected.
 */
public class MeterRegistryLookup {
    @Inject
    Instance<MeterRegistry> registries;

    /** @return the application's registry, or null when nothing provides exactly one */
    MeterRegistry registry() {
        return registries.isResolvable() ? registries.get() : null;
    }
}
