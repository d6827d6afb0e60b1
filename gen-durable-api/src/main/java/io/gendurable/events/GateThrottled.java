package io.gendurable.events;

/**
 * A concurrency gate admitted fewer of a key's claimed rows than were claimed (one per key per
 * admission); the others went back to runnable.
 *
 * @param key      the concurrency key
 * @param queue    the queue
 * @param wanted   rows of the key in the admission
 * @param admitted rows of the key admitted
 */
public record GateThrottled(String key, String queue, int wanted, int admitted) implements EngineEvent {
}
