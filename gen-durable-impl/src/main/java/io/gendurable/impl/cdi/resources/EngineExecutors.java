package io.gendurable.impl.cdi.resources;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The engine's two executors, where they came from, and the ones this layer created (the only
 * ones {@link #close()} shuts down: a container's managed executors are never shut down).
 *
 * @param timer  claims, flushes, heartbeats and sweeps
 * @param steps  runs the steps
 * @param probeThreads makes the readiness probe's own thread (the container's managed thread factory, or daemon threads)
 * @param origin a description for the start-up log
 * @param owned  the executors this layer created
 */
public record EngineExecutors(ScheduledExecutorService timer, ExecutorService steps,
                              ThreadFactory probeThreads, String origin,
                              List<ExecutorService> owned) implements AutoCloseable {
    private static final long SHUTDOWN_WAIT_SECONDS = 5;

    /** Requires both executors. */
    public EngineExecutors {
        Objects.requireNonNull(timer, "timer");
        Objects.requireNonNull(steps, "steps");
        Objects.requireNonNull(probeThreads, "probeThreads");
        Objects.requireNonNull(origin, "origin");
        owned = List.copyOf(owned);
    }

    /**
     * Shuts down the executors this layer created: after the engine has drained, so only
     * stragglers remain; waits briefly, then interrupts.
     */
    @Override
    public void close() {
        owned.forEach(ExecutorService::shutdown);
        for (ExecutorService e : owned) {
            try {
                if (!e.awaitTermination(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS)) {
                    e.shutdownNow();
                }
            } catch (InterruptedException ie) {
                e.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }
}
