package io.gendurable;

/**
 * The engine behind {@link GenDurable} has stopped (the application is undeploying or shutting
 * down), so it cannot read or write instances any more. Thrown by {@link GenDurable#await} when
 * the engine stopped before the call could read the instance's row even once; a caller that had
 * read the row answers {@link AwaitResult.Busy} with that snapshot instead. Another node, or
 * this one after a restart, answers the same call: the instance is not affected.
 *
 * <p>An {@link IllegalStateException}, so existing handlers of "the engine is not available"
 * still catch it.
 */
public class EngineStoppedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was refused, and why
     */
    public EngineStoppedException(String message) {
        super(message);
    }
}
