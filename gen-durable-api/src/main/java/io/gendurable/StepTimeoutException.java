package io.gendurable;

import java.time.Duration;

/**
 * A step ran past its timeout ({@link DurableFsm#stepTimeout()}, {@link Fsm#stepTimeout(String)},
 * {@link InsertOptions#stepTimeout()} or {@code gendurable.step-timeout}): its thread was
 * interrupted and whatever it returned afterwards was discarded. The engine hands this to
 * {@link Fsm#onError} in place of the step's outcome, so the default policy retries it with backoff
 * and, at {@link DurableFsm#maxAttempts()}, fails the instance with this message.
 */
public final class StepTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The step that timed out. */
    private final String step;
    /** Its timeout. */
    private final transient Duration timeout;

    /**
     * @param step    the step that timed out
     * @param timeout its timeout
     */
    public StepTimeoutException(String step, Duration timeout) {
        super("step '" + step + "' timed out after " + timeout);
        this.step = step;
        this.timeout = timeout;
    }

    /** @return the step that timed out */
    public String step() {
        return step;
    }

    /** @return the timeout it ran past */
    public Duration timeout() {
        return timeout;
    }
}
