package io.gendurable.testing;

import java.time.Instant;
import java.util.List;

/**
 * What a drain ran, and the test clock when it ended.
 *
 * @param steps   every step, in the order it ran
 * @param clockAt the test clock's instant when the drain ended (later than at its start when
 *                delays were collapsed)
 */
public record DrainResult(List<RanStep> steps, Instant clockAt) {
    /** Copies the list. */
    public DrainResult {
        steps = List.copyOf(steps);
    }

    /** @return how many steps ran */
    public int count() {
        return steps.size();
    }

    /** @param id an instance @return the steps of that instance, in order */
    public List<RanStep> stepsOf(long id) {
        return steps.stream().filter(s -> s.id() == id).toList();
    }

    /** @param id an instance @return the names of the steps it ran, in order */
    public List<String> stepNamesOf(long id) {
        return stepsOf(id).stream().map(RanStep::step).toList();
    }

    /** @param fsm an FSM name @return how many steps of that FSM ran */
    public long countOf(String fsm) {
        return steps.stream().filter(s -> s.fsm().equals(fsm)).count();
    }
}
