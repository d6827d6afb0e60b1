package io.gendurable.impl.cdi.metrics;

import io.gendurable.impl.trace.OtelTracing;
import io.gendurable.impl.trace.Tracing;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.inject.Inject;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Obtains the application's {@link OpenTelemetry} (MicroProfile Telemetry produces it on Liberty
 * and WildFly) through an injected {@link Instance}, as {@link MeterRegistryLookup} does for
 * Micrometer, for the step spans ({@link #tracing()}) and the metrics backend
 * ({@link OpenTelemetryMetricsEvents}).
 *
 * <p>Not a discovered bean (no bean-defining annotation): {@link io.gendurable.impl.cdi.GenDurableExtension} adds it only
 * when the OpenTelemetry API is visible, so applications without it never load the API.
 */
public class OpenTelemetryLookup {
    private static final Logger LOG = System.getLogger("io.gendurable.cdi");

    @Inject
    Instance<OpenTelemetry> telemetry;

    /**
     * @return the container's OpenTelemetry, or null when none is resolvable
     * @throws LinkageError when the API is not visible (callers check first)
     */
    static OpenTelemetry telemetry() {
        var lookup = CDI.current().select(OpenTelemetryLookup.class);
        if (!lookup.isResolvable()) {
            return null;
        }
        Instance<OpenTelemetry> otel = lookup.get().telemetry;
        return otel.isResolvable() ? otel.get() : null;
    }

    /** @return the tracing of the container's OpenTelemetry, {@link Tracing#NONE} when there is none (or no API) */
    public static Tracing tracing() {
        try {
            var lookup = CDI.current().select(OpenTelemetryLookup.class);
            if (!lookup.isResolvable()) {
                return Tracing.NONE;
            }
            Instance<OpenTelemetry> otel = lookup.get().telemetry;
            if (!otel.isResolvable()) {
                return Tracing.NONE;
            }
            return new OtelTracing(otel.get());
        } catch (LinkageError | RuntimeException e) {
            LOG.log(Level.DEBUG, "gen-durable: no OpenTelemetry, tracing is off: " + e);
            return Tracing.NONE;
        }
    }
}
