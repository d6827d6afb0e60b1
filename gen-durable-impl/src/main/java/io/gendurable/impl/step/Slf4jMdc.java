package io.gendurable.impl.step;

import org.slf4j.MDC;
import org.slf4j.helpers.NOPMDCAdapter;

/**
 * The only class that touches SLF4J: loaded by {@link StepLogContext} once it has seen
 * {@code org.slf4j.MDC}.
 */
final class Slf4jMdc {
    private Slf4jMdc() {
    }

    /** @return the MDC writer, or null when SLF4J's provider keeps no MDC (its no-operation one) */
    static Slf4jMdc ifKept() {
        return MDC.getMDCAdapter() == null || MDC.getMDCAdapter() instanceof NOPMDCAdapter ? null : new Slf4jMdc();
    }

    void put(long id, String fsm, String step, int attempt) {
        MDC.put(StepLogContext.ID, Long.toString(id));
        MDC.put(StepLogContext.FSM, fsm);
        MDC.put(StepLogContext.STEP, step);
        MDC.put(StepLogContext.ATTEMPT, Integer.toString(attempt));
    }

    void clear() {
        MDC.remove(StepLogContext.ID);
        MDC.remove(StepLogContext.FSM);
        MDC.remove(StepLogContext.STEP);
        MDC.remove(StepLogContext.ATTEMPT);
    }
}
