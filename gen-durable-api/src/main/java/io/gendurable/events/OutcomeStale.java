package io.gendurable.events;

/**
 * A step's outcome committed nothing: its row had been reclaimed (by the reaper or another node)
 * while the step ran, so the ownership guard rejected it.
 *
 * @param id   the instance
 * @param fsm  its FSM name
 * @param step the step that ran
 * @param kind the outcome rejected ({@code next}, {@code retry}, {@code await}, {@code schedule_children},
 *             {@code done}, {@code stop}), or {@code none} when the claim lapsed before the step started
 */
public record OutcomeStale(long id, String fsm, String step, String kind) implements EngineEvent {
}
