package io.gendurable.events;

/**
 * When a queue's scheduler started, it released the claims a dead predecessor (the same node id,
 * the same queue) left behind.
 *
 * @param queue the queue
 * @param count claims released to runnable
 */
public record ClaimsReclaimed(String queue, int count) implements EngineEvent {
}
