package io.gendurable.impl.cdi.metrics;

import io.gendurable.DurableEngine;
import io.gendurable.events.OperatorAction;
import io.gendurable.events.StepCompleted;
import io.gendurable.events.StepFailed;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.runtime.EngineEvents;
import jakarta.enterprise.event.Event;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The engine's observers in a container: CDI events always, and metrics through the backends of
 * {@code gendurable.metrics.backend} ({@link MetricsChoice}); by default the first the application
 * has: MicroProfile Metrics (Open Liberty's {@code mpMetrics}), else Micrometer (WildFly's
 * {@code micrometer} subsystem), else OpenTelemetry (MicroProfile Telemetry). Isolates each
 * backend's classes, so an application without any (no API on its class path) still runs and
 * still gets its events.
 */
public final class ContainerEvents implements EngineEvents {
    private static final Logger LOG = System.getLogger("io.gendurable.cdi");

    private final Event<Object> cdi;
    private final MetricsBackend metrics;

    private ContainerEvents(Event<Object> cdi, MetricsBackend metrics) {
        this.cdi = cdi;
        this.metrics = metrics;
    }

    /** @return the default engine's events with metrics through the first backend the application has ({@code gendurable.metrics.backend=auto}) */
    public static ContainerEvents create(Event<Object> cdi) {
        return create(cdi, MetricsChoice.AUTO, DurableEngine.DEFAULT);
    }

    /**
     * @param choice the backends of the engine's {@code metrics.backend}
     * @param engine the engine's name: every metric's {@code engine} tag
     * @return events with metrics through the chosen backends
     * @throws io.gendurable.impl.config.ConfigException when a listed backend's API or registry is absent
     */
    public static ContainerEvents create(Event<Object> cdi, MetricsChoice choice, String engine) {
        List<String> missing = new ArrayList<>();
        List<MetricsBackend> found = new ArrayList<>();
        for (MetricsChoice.Backend b : choice.backends()) {
            MetricsBackend backend = backend(b, missing, engine);
            if (backend != null) {
                found.add(backend);
                if (choice.auto()) {
                    break;
                }
            } else if (!choice.auto()) {
                throw MetricsChoice.missing(b, missing.get(missing.size() - 1));
            }
        }
        if (found.isEmpty() && choice.auto()) {
            LOG.log(Level.INFO, "gen-durable: neither MicroProfile Metrics, Micrometer nor OpenTelemetry in this application; "
                    + "engine metrics are off (" + String.join("; ", missing) + ")");
        }
        return new ContainerEvents(cdi, found.isEmpty() ? null : found.size() == 1 ? found.get(0) : new Several(found));
    }

    /** @return the backend, or null (why, noted in {@code missing}) when its API or registry is absent */
    private static MetricsBackend backend(MetricsChoice.Backend b, List<String> missing, String engine) {
        if (!b.apiPresent()) {
            missing.add(b.label + ": no API");
            return null;
        }
        try {
            // each backend class is loaded only here, once its API is known to be visible
            MetricsBackend found = switch (b) {
                case MICROPROFILE -> MetricsEvents.fromContainer(engine);
                case MICROMETER -> MicrometerEvents.fromContainer(engine);
                case OPENTELEMETRY -> OpenTelemetryMetricsEvents.fromContainer(engine);
            };
            if (found == null) {
                missing.add(b.label + ": no registry");
            }
            return found;
        } catch (LinkageError | RuntimeException e) {
            missing.add(b.label + ": " + e);
            return null;
        }
    }

    /** @return where the engine's metrics go, for the start-up log line */
    public String metricsOrigin() {
        return metrics == null ? "no metrics" : "metrics " + metrics.describe();
    }

    /** Registers the gauges over the engine (when metrics are on). */
    public void registerGauges(Engine engine) {
        if (metrics != null) {
            metrics.registerGauges(engine);
        }
    }

    /** Removes the engine's meters from a registry that may outlive it (the engine has stopped). */
    public void close() {
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
    public void stepTimedOut(long id, String fsm, String step, String queue) {
        if (metrics != null) {
            metrics.stepTimedOut(id, fsm, step, queue);
        }
    }

    @Override
    public void operated(OperatorAction action) {
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

    /** Several backends at once ({@code gendurable.metrics.backend=microprofile,opentelemetry}): each gets every event. */
    private static final class Several implements MetricsBackend {
        private final MetricsBackend[] all;

        Several(List<MetricsBackend> all) {
            this.all = all.toArray(MetricsBackend[]::new);
        }

        @Override
        public void registerGauges(Engine engine) {
            for (MetricsBackend b : all) {
                b.registerGauges(engine);
            }
        }

        @Override
        public void close() {
            RuntimeException first = null;
            for (MetricsBackend b : all) {
                try {
                    b.close();
                } catch (RuntimeException e) {
                    first = first == null ? e : first;
                }
            }
            if (first != null) {
                throw first;
            }
        }

        @Override
        public String describe() {
            return Arrays.stream(all).map(MetricsBackend::describe).collect(Collectors.joining(" and "));
        }

        @Override
        public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos, String error,
                                 boolean stale) {
            for (MetricsBackend b : all) {
                b.stepFinished(id, fsm, step, queue, outcome, nanos, error, stale);
            }
        }

        @Override
        public void stepTimedOut(long id, String fsm, String step, String queue) {
            for (MetricsBackend b : all) {
                b.stepTimedOut(id, fsm, step, queue);
            }
        }

        @Override
        public void picked(String queue, int count) {
            for (MetricsBackend b : all) {
                b.picked(queue, count);
            }
        }

        @Override
        public void flushed(int outcomes, long nanos) {
            for (MetricsBackend b : all) {
                b.flushed(outcomes, nanos);
            }
        }
    }
}
