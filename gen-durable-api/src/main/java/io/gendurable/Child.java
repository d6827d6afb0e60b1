package io.gendurable;

/**
 * A child instance as its parent sees it after a fan-in ({@link StepContext#children()}).
 *
 * @param id        the child's id
 * @param fsm       its FSM name
 * @param status    its status (terminal when the parent was woken by the join)
 * @param result    its result (JSON null unless done)
 * @param lastError its error, or null
 */
public record Child(long id, String fsm, Status status, DurableValue result, String lastError) {
}
