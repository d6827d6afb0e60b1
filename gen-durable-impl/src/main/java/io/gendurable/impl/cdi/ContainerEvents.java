package io.gendurable.impl.cdi;

import io.gendurable.events.StepCompleted;
import io.gendurable.events.StepFailed;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.runtime.EngineEvents;
import jakarta.enterprise.event.Event;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;

/**
 * The engine's observers in a container: CDI events always, MicroProfile Metrics when the
 * application has them. Isolates the metrics classes, so an application without MicroProfile
 * Metrics (no API on its class path) still runs and still gets its events.
 */
final class ContainerEvents implements EngineEvents {
    private static final Logger LOG = System.getLogger("io.gendurable.cdi");

    private final Event<Object> cdi;
    private final EngineEvents metrics;

    private ContainerEvents(Event<Object> cdi, EngineEvents metrics) {
        this.cdi = cdi;
        this.metrics = metrics;
    }

    static ContainerEvents create(Event<Object> cdi) {
        EngineEvents metrics;
        try {
            metrics = MetricsEvents.fromContainer();
        } catch (LinkageError | RuntimeException e) {
            LOG.log(Level.INFO, "gen-durable: no MicroProfile Metrics in this application; engine metrics are off ("
                    + e + ")");
            metrics = null;
        }
        return new ContainerEvents(cdi, metrics);
    }

    /** Registers the gauges over the engine (when metrics are on). */
    void registerGauges(Engine engine) {
        if (metrics instanceof MetricsEvents m) {
            m.registerGauges(engine);
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
