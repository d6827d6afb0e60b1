package io.gendurable;

/**
 * A durable finite-state machine. Implement it in a CDI bean (usually {@code @ApplicationScoped})
 * and describe it with {@link DurableFsm}. Each call of {@link #step} runs one step with no
 * transaction open; its {@link Outcome} is committed before the next step runs. A step may run
 * more than once (at-least-once, whole-step re-execution), so its effects must tolerate that.
 *
 * @param <S> the state type, usually a record, stored as a JSON object through JSON-B
 */
public interface Fsm<S> {

    /**
     * Runs one step.
     *
     * @param step  the current step name
     * @param state the durable state as last committed
     * @param ctx   the instance's context
     * @return what to do next; never null
     * @throws Exception any failure, handed to {@link #onError}
     */
    Outcome step(String step, S state, StepContext ctx) throws Exception;

    /**
     * Decides what an exception thrown by {@link #step}, or an outcome that cannot be stored,
     * leads to. The default retries with exponential backoff ({@link Backoff#exponential(int)})
     * while {@code ctx.attempt() < ctx.maxAttempts()}, then stops with the error's text.
     *
     * @param step  the step that failed
     * @param state the state the step started from (null when it could not be read)
     * @param ctx   the instance's context
     * @param error what went wrong
     * @return the outcome to commit instead
     */
    default Outcome onError(String step, S state, StepContext ctx, Throwable error) {
        if (ctx.attempt() < ctx.maxAttempts()) {
            return Outcome.retry(Backoff.exponential(ctx.attempt()));
        }
        return Outcome.stop(Backoff.describe(error));
    }

    /**
     * The longest one step may run before its thread is interrupted and it ends as a
     * {@link StepTimeoutException} (handed to {@link #onError}). Asked before each run of a step, only
     * when the FSM's class overrides this method. The default returns null.
     *
     * @param step the step about to run
     * @return its timeout (positive), {@link java.time.Duration#ZERO} for none, or null for the FSM's
     * ({@link DurableFsm#stepTimeout()}, else {@code gendurable.step-timeout}); an instance inserted
     * with {@link InsertOptions#stepTimeout()} keeps that one for every step
     */
    default java.time.Duration stepTimeout(String step) {
        return null;
    }
}
