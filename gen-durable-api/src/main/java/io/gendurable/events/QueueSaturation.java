package io.gendurable.events;

/**
 * How full a queue's scheduler on this node was right after a claim (one per claim).
 *
 * @param queue       the queue
 * @param running     steps of the queue not finished: running, or waiting for their outcome's flush
 * @param buffer      rows claimed and waiting in memory for a free thread
 * @param concurrency the queue's concurrency on this node
 * @param prefetch    rows the queue claims beyond its free slots now
 */
public record QueueSaturation(String queue, int running, int buffer, int concurrency, int prefetch)
        implements EngineEvent {
}
