package io.gendurable;

/**
 * The answer of {@link GenDurable#await}: always read from the instance's row.
 */
public sealed interface AwaitResult permits AwaitResult.Done, AwaitResult.Failed, AwaitResult.Cancelled,
        AwaitResult.Awaiting, AwaitResult.Busy, AwaitResult.NotFound {

    /**
     * The instance finished.
     *
     * @param id     the instance
     * @param result its result
     */
    record Done(long id, DurableValue result) implements AwaitResult {
    }

    /**
     * The instance stopped with an error.
     *
     * @param id    the instance
     * @param error its last error
     */
    record Failed(long id, String error) implements AwaitResult {
    }

    /**
     * An operator cancelled the instance ({@link DurableOperations#cancel}).
     *
     * @param id     the instance
     * @param reason the reason the operator gave
     */
    record Cancelled(long id, String reason) implements AwaitResult {
    }

    /**
     * The instance is parked, awaiting signals or children (only with {@link AwaitUntil#SETTLED}).
     *
     * @param snapshot the row
     */
    record Awaiting(InstanceSnapshot snapshot) implements AwaitResult {
    }

    /**
     * The deadline passed while the instance was still working; the work goes on. Calling
     * {@code await} again with the id is the retry protocol.
     *
     * @param snapshot the row at the deadline
     */
    record Busy(InstanceSnapshot snapshot) implements AwaitResult {
    }

    /**
     * No such instance (never inserted, or deleted by the GC after its retention).
     *
     * @param id the id asked for
     */
    record NotFound(long id) implements AwaitResult {
    }
}
