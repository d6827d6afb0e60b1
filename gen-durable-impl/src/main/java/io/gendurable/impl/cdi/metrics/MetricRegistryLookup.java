package io.gendurable.impl.cdi.metrics;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.MetricRegistry;

/**
 * Obtains the application's {@link MetricRegistry} through an injected {@link Instance}. A
 * programmatic {@code CDI.current().select(MetricRegistry.class)} has no injection point, and
 * SmallRye Metrics' producer (Open Liberty's mpMetrics) reads the injection point's annotations:
 * it throws a NullPointerException there, which left the engine without metrics. An injected
 * {@code Instance} carries its injection point to the producer.
 *
 * <p>Not a discovered bean (no bean-defining annotation): {@link io.gendurable.impl.cdi.GenDurableExtension} adds it only
 * when the MicroProfile Metrics API is on the class path, so applications without it are unaffected.
 */
public class MetricRegistryLookup {
    @Inject
    Instance<MetricRegistry> registries;

    /** @return the application registry, or null when no MicroProfile Metrics implementation provides one */
    MetricRegistry registry() {
        return registries.isResolvable() ? registries.get() : null;
    }
}
