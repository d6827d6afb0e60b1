package io.gendurable.events;

/**
 * A claim met another node's claim on a K = 1 concurrency key (a cross-node race on the key's unique
 * index) and was retried at once. Rate-limit and gate admission races are {@link LimitContended}.
 *
 * @param queue    the queue
 * @param count    races this claim lost
 * @param deferred true when it lost every try and took nothing until the queue's next poll
 */
public record KeyContended(String queue, int count, boolean deferred) implements EngineEvent {
}
