package io.gendurable.impl.runtime;

import io.gendurable.events.OperatorAction;

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
     * A step ran past its timeout: its thread was interrupted, and its outcome will be the
     * {@code StepTimeoutException}'s (through {@code onError}).
     *
     * @param id    the instance
     * @param fsm   its FSM name
     * @param step  the step that timed out
     * @param queue its queue
     */
    default void stepTimedOut(long id, String fsm, String step, String queue) {
    }

    /**
     * A claim ran (metric names keep "pick": {@code gendurable.pick.count}).
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
    default void operated(OperatorAction action) {
    }

    /**
     * @param first  told first; a failure is logged and does not keep {@code second} from being told
     * @param second told second (may be {@link #NONE})
     * @return observers telling both
     */
    static EngineEvents both(EngineEvents first, EngineEvents second) {
        return new EngineEvents() {
            private static final System.Logger LOG = System.getLogger("io.gendurable.engine");

            private void guard(Runnable r) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "gen-durable: an engine observer failed: " + e);
                }
            }

            @Override
            public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos,
                                     String error, boolean stale) {
                try {  // no lambda here: once per step
                    first.stepFinished(id, fsm, step, queue, outcome, nanos, error, stale);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "gen-durable: an engine observer failed: " + e);
                }
                second.stepFinished(id, fsm, step, queue, outcome, nanos, error, stale);
            }

            @Override
            public void stepTimedOut(long id, String fsm, String step, String queue) {
                guard(() -> first.stepTimedOut(id, fsm, step, queue));
                second.stepTimedOut(id, fsm, step, queue);
            }

            @Override
            public void picked(String queue, int count) {
                guard(() -> first.picked(queue, count));
                second.picked(queue, count);
            }

            @Override
            public void flushed(int outcomes, long nanos) {
                guard(() -> first.flushed(outcomes, nanos));
                second.flushed(outcomes, nanos);
            }

            @Override
            public void operated(OperatorAction action) {
                guard(() -> first.operated(action));
                second.operated(action);
            }
        };
    }

    /** Observes nothing. */
    EngineEvents NONE = new EngineEvents() {
    };
}
