package io.gendurable.testing;

/**
 * One step a drain ran, in the order it ran.
 *
 * @param id      the instance
 * @param fsm     its FSM name
 * @param step    the step that ran
 * @param queue   its queue
 * @param outcome what the step's outcome was: {@code next}, {@code retry}, {@code await},
 *                {@code schedule_children}, {@code done} or {@code stop}
 * @param error   the exception's text when the step threw (its outcome then came from
 *                {@code onError}), else null
 */
public record RanStep(long id, String fsm, String step, String queue, String outcome, String error) {
    @Override
    public String toString() {
        return fsm + "#" + id + " " + step + " -> " + outcome + (error == null ? "" : " (" + error + ")");
    }
}
