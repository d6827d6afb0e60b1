package io.gendurable.impl.poke;

/**
 * Nudges the schedulers of a queue that runnable work is due, so it starts without waiting for
 * a poll. Best-effort: a lost poke costs one poll interval, never correctness.
 */
@FunctionalInterface
public interface Poke {
    /** @param queue the queue that received due work */
    void poke(String queue);

    /** A transport that tells nobody. */
    Poke NONE = queue -> { };
}
