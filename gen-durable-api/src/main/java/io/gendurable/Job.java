package io.gendurable;

/**
 * A one-step durable job. Its return value completes the instance as done with that result;
 * an exception retries with exponential backoff until {@link DurableFsm#maxAttempts()}, then
 * fails it (through {@link Fsm#onError}).
 *
 * @param <A> the arguments type, stored as JSON through JSON-B
 */
public interface Job<A> extends Fsm<A> {

    /**
     * Performs the job.
     *
     * @param args the arguments given at insert
     * @param ctx  the instance's context
     * @return the result, stored as JSON (null for none)
     * @throws Exception any failure: retried with backoff
     */
    Object perform(A args, StepContext ctx) throws Exception;

    /** Runs {@link #perform} and completes with its result. */
    @Override
    default Outcome step(String step, A state, StepContext ctx) throws Exception {
        return Outcome.done(perform(state, ctx));
    }
}
