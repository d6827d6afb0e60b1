/**
 * The engine's events, one record type per event ({@link io.gendurable.events.EngineEvent}): observe
 * them in CDI with {@code @Observes} or {@code @ObservesAsync}, or with an
 * {@link io.gendurable.events.EngineEventListener} in plain Java.
 */
package io.gendurable.events;
