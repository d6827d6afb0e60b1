package io.gendurable.events;

/**
 * This node's reaper fired await deadlines: parked rows woke to their next step without the
 * awaited signal (one per sweep that fired any).
 *
 * @param count deadlines fired
 */
public record AwaitsTimedOut(int count) implements EngineEvent {
}
