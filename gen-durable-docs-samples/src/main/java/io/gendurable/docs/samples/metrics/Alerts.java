package io.gendurable.docs.samples.metrics;

/** The application's own alerting. */
public interface Alerts {
    /**
     * Raises an alert.
     *
     * @param fsm     the FSM
     * @param id      the instance
     * @param step    the step
     * @param outcome the outcome committed
     * @param error   the error text
     */
    void raise(String fsm, long id, String step, String outcome, String error);
}
