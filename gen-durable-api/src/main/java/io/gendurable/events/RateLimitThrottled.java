package io.gendurable.events;

/**
 * A rate limit's bucket granted fewer of a key's claimed rows than were claimed (one per key per
 * admission), for lack of tokens; the others went back to runnable.
 *
 * @param key     the rate-limit key ({@code name} or {@code name:partition})
 * @param queue   the queue
 * @param wanted  rows of the key in the admission
 * @param granted rows of the key admitted
 */
public record RateLimitThrottled(String key, String queue, int wanted, int granted) implements EngineEvent {
}
