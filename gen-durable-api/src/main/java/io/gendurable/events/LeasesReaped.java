package io.gendurable.events;

/**
 * This node's reaper returned rows with an expired lease to runnable (one per sweep that found any).
 *
 * @param count rows returned
 */
public record LeasesReaped(int count) implements EngineEvent {
}
