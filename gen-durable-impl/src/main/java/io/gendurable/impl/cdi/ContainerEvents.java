package io.gendurable.impl.cdi;

import io.gendurable.events.StepCompleted;
import io.gendurable.events.StepFailed;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.runtime.EngineEvents;
import jakarta.enterprise.event.Event;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The engine's observers in a container: CDI events always, and metrics through the first
 * backend the application has: MicroProfile Metrics (Open Liberty's {@code mpMetrics}), else
 * Micrometer (WildFly's {@code micrometer} subsystem). Isolates each backend's classes, so an
 * application without either (no API on its class path) still runs and still gets its events.
 */
final class ContainerEvents implements EngineEvents {
    private static final Logger LOG = System.getLogger("io.gendurable.cdi");

    private final Event<Object> cdi;
    private final MetricsBackend metrics;

    private ContainerEvents(Event<Object> cdi, MetricsBackend metrics) {
        this.cdi = cdi;
        this.metrics = metrics;
    }

    static ContainerEvents create(Event<Object> cdi) {
        List<String> missing = new ArrayList<>();
        // lambdas, not method references: a backend whose API is absent fails inside backend(), when called
        MetricsBackend metrics = backend("MicroProfile Metrics", () -> MetricsEvents.fromContainer(), missing);
        if (metrics == null) {
            metrics = backend("Micrometer", () -> MicrometerEvents.fromContainer(), missing);
        }
        if (metrics == null) {
            LOG.log(Level.INFO, "gen-durable: neither MicroProfile Metrics nor Micrometer in this application; engine metrics are off ("
                    + String.join("; ", missing) + ")");
        }
        return new ContainerEvents(cdi, metrics);
    }

    /** @return the backend, or null (noted in {@code missing}) when its API or registry is absent */
    private static MetricsBackend backend(String name, Supplier<MetricsBackend> lookup, List<String> missing) {
        try {
            MetricsBackend b = lookup.get();
            if (b == null) {
                missing.add(name + ": no registry");
            }
            return b;
        } catch (LinkageError | RuntimeException e) {
            missing.add(name + ": " + e);
            return null;
        }
    }

    /** @param cdi the CDI events @return events without metrics (a named engine: the meters carry no engine tag yet) */
    static ContainerEvents withoutMetrics(Event<Object> cdi) {
        return new ContainerEvents(cdi, null);
    }

    /** @return where the engine's metrics go, for the start-up log line */
    String metricsOrigin() {
        return metrics == null ? "no metrics" : "metrics " + metrics.describe();
    }

    /** Registers the gauges over the engine (when metrics are on). */
    void registerGauges(Engine engine) {
        if (metrics != null) {
            metrics.registerGauges(engine);
        }
    }

    /** Removes the engine's meters from a registry that may outlive it (the engine has stopped). */
    void close() {
        if (metrics != null) {
            try {
                metrics.close();
            } catch (RuntimeException | LinkageError e) {
                LOG.log(Level.WARNING, "gen-durable: could not remove the engine's meters: " + e);
            }
        }
    }

    @Override
    public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos, String error,
                             boolean stale) {
        if (metrics != null) {
            metrics.stepFinished(id, fsm, step, queue, outcome, nanos, error, stale);
        }
        if (cdi != null && !stale) {
            Duration d = Duration.ofNanos(nanos);
            if (error != null) {
                cdi.fireAsync(new StepFailed(id, fsm, step, queue, outcome, error, d));
            } else {
                cdi.fireAsync(new StepCompleted(id, fsm, step, queue, outcome, d));
            }
        }
    }

    @Override
    public void operated(io.gendurable.events.OperatorAction action) {
        if (cdi != null) {
            cdi.fire(action);
        }
    }

    @Override
    public void picked(String queue, int count) {
        if (metrics != null) {
            metrics.picked(queue, count);
        }
    }

    @Override
    public void flushed(int outcomes, long nanos) {
        if (metrics != null) {
            metrics.flushed(outcomes, nanos);
        }
    }
}
