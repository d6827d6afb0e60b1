package io.gendurable.testing;

/**
 * A drain that cannot finish: a runaway FSM went past {@code maxSteps}, rows are due but never
 * admitted, or work waits in a queue the engine does not serve. An {@link AssertionError}, so a
 * test reports it as a failure; the message names the FSMs and instances involved.
 */
public final class DrainException extends AssertionError {
    private static final long serialVersionUID = 1L;

    /** @param message what kept the drain from finishing, naming the FSMs and instances */
    public DrainException(String message) {
        super(message);
    }

    /**
     * @param message what kept the drain from finishing
     * @param cause   what a step threw that the engine does not catch
     */
    public DrainException(String message, Throwable cause) {
        super(message, cause);
    }
}
