package io.gendurable.events;

/**
 * A queue's scheduler gave back its buffered, unstarted claims: on stop (a graceful drain), or
 * while the queue is paused.
 *
 * @param queue    the queue
 * @param released claims released to runnable (those still this node's)
 * @param running  steps of the queue still running on this node at that moment
 */
public record QueueDrained(String queue, int released, int running) implements EngineEvent {
}
