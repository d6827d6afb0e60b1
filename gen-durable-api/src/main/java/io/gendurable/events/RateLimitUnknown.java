package io.gendurable.events;

/**
 * A claimed row named a rate limit this node does not configure: it was denied and stalls until
 * the limit is configured.
 *
 * @param key  the rate-limit key the row named
 * @param name the limit's name (the key up to its first colon)
 * @param fsm  the row's FSM name
 * @param step the step the row was to run
 */
public record RateLimitUnknown(String key, String name, String fsm, String step) implements EngineEvent {
}
