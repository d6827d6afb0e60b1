package io.gendurable.impl.cdi;

import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.runtime.EngineEvents;

/**
 * Where the engine's metrics go in a container: MicroProfile Metrics ({@link MetricsEvents}) or
 * Micrometer ({@link MicrometerEvents}), whichever the application has (docs/metrics.md). Each
 * implementation is the only class that touches its API, so an application without that API
 * never loads it.
 */
interface MetricsBackend extends EngineEvents {

    /**
     * Registers the gauges over the engine's counters, its queues and the cluster-wide queue figures.
     *
     * @param engine the engine, built and not yet started
     */
    void registerGauges(Engine engine);

    /** Removes what this backend registered (the engine has stopped); a no-op where the registry ends with the application. */
    default void close() {
    }

    /** @return a short name for the log line that says where the metrics go */
    String describe();
}
