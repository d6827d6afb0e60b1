package io.gendurable.impl.runtime;

/**
 * A background service driven by one {@link Periodic} loop (the reaper, the GC, the await
 * watcher, the paused-queues refresh): the engine starts and stops it through its loop.
 */
public interface Background {
    /** @return the loop that runs the service */
    Periodic loop();

    /** Starts the loop. Idempotent. */
    default void start() {
        loop().start();
    }

    /** Stops the loop. Idempotent. */
    default void stop() {
        loop().stop();
    }
}
