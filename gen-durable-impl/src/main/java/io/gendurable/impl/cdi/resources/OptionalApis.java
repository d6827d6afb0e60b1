package io.gendurable.impl.cdi.resources;

/**
 * The optional APIs this layer adapts when the application sees them (MicroProfile Metrics,
 * Micrometer, OpenTelemetry, MicroProfile Health): a class that uses one is loaded only after
 * {@link #present} said yes, so an application without it is unaffected.
 */
public final class OptionalApis {
    /** MicroProfile Metrics. */
    public static final String MICROPROFILE_METRICS = "org.eclipse.microprofile.metrics.MetricRegistry";
    /** Micrometer. */
    public static final String MICROMETER = "io.micrometer.core.instrument.MeterRegistry";
    /** OpenTelemetry (MicroProfile Telemetry). */
    public static final String OPENTELEMETRY = "io.opentelemetry.api.OpenTelemetry";
    /** MicroProfile Health. */
    public static final String MICROPROFILE_HEALTH = "org.eclipse.microprofile.health.HealthCheck";

    private OptionalApis() {
    }

    /** @param className a class of the API @return whether it is visible to the engine's class loader */
    public static boolean present(String className) {
        try {
            Class.forName(className, false, OptionalApis.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
