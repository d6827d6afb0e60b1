package io.gendurable;

import java.util.Optional;

/**
 * The operator's API: inject it ({@code @Inject DurableOperations operations}) like
 * {@link GenDurable}, into an EJB, a REST resource or a test ({@code DurableTesting.operations()}).
 * Thread-safe. Every method is one short read-only transaction on the engine's DataSource
 * (never the caller's JTA transaction) and sees the rows as committed.
 *
 * <p>This release reads: {@link #search search}, {@link #inspect inspect}, {@link #summary
 * summary}. The actions (cancel, retry, reschedule, pause and resume a queue, bulk actions by a
 * search) come as further methods of this interface.
 */
public interface DurableOperations {

    /**
     * Finds instances by any mix of filters, one page at a time, in id order (keyset paging: a
     * page starts after the last id of the previous one, so concurrent changes never repeat or
     * skip a row that matches throughout).
     *
     * @param query the filters, the page size, the order and the cursor
     * @return one page, and the next page's cursor when there may be more
     * @throws NullPointerException     when {@code query} is null
     * @throws IllegalArgumentException when the cursor is not one this engine issued, or was issued
     *                                  for the other order
     */
    InstancePage search(InstanceQuery query);

    /**
     * Reads one instance with what it waits for: its pending inbox, its children per status, its
     * parent, its claim, its gate and its rate limit.
     *
     * @param id an instance id
     * @return the details, if the instance exists
     */
    Optional<InstanceDetails> inspect(long id);

    /**
     * Counts the instances per queue and status, with the age of each queue's oldest due
     * runnable instance. Reads the whole instance table (one scan): call it from a dashboard or a
     * runbook, not per request.
     *
     * @return the summary, at the engine's clock
     */
    OperationsSummary summary();
}
