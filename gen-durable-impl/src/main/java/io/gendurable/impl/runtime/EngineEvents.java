package io.gendurable.impl.runtime;

/**
 * Hooks for observers of the engine (MicroProfile Metrics and CDI events in a container). Called
 * on engine threads after the fact; an observer that throws is logged and ignored. Default: no-ops.
 */
public interface EngineEvents {

    /**
     * A step's outcome was committed (or found stale).
     *
     * @param id      the instance
     * @param fsm     its FSM name
     * @param step    the step that ran
     * @param queue   its queue
     * @param outcome next, retry, await, schedule_children, done or stop
     * @param nanos   how long the step's code ran
     * @param error   the failure that led to this outcome through onError, else null
     * @param stale   true when the outcome committed nothing (the row was reclaimed)
     */
    default void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos,
                              String error, boolean stale) {
    }

    /**
     * A pick ran.
     *
     * @param queue the queue
     * @param count rows claimed and admitted
     */
    default void picked(String queue, int count) {
    }

    /**
     * A flush transaction committed.
     *
     * @param outcomes how many outcomes it wrote
     * @param nanos    how long it took
     */
    default void flushed(int outcomes, long nanos) {
    }

    /**
     * An operator's action committed.
     *
     * @param action what was done, by whom
     */
    default void operated(io.gendurable.events.OperatorAction action) {
    }

    /** Observes nothing. */
    EngineEvents NONE = new EngineEvents() {
    };
}
