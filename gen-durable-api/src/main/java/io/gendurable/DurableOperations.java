package io.gendurable;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The operator's API: find and inspect instances, and act on instances and queues. Inject it ({@code @Inject DurableOperations
 * ops}) into an EJB, a REST resource or a test, like {@link GenDurable}. Thread-safe.
 * <p>
 * Every action is one short transaction: it validates its input first (an
 * {@link IllegalArgumentException} naming the field, nothing written), waits at most a few
 * seconds for a row another transaction holds (then fails, nothing written), logs the action
 * with the caller's principal when there is one, and fires an
 * {@link io.gendurable.events.OperatorAction} CDI event after it committed.
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
     * runnable instance, and the queues' alerts against the live nodes ({@link #nodes()}): a queue
     * with runnable instances no live node serves, a rate-limit name no live node configures.
     * Reads the whole instance table (one scan): call it from a dashboard or a runbook, not per
     * request.
     *
     * @return the summary, at the engine's clock
     */
    OperationsSummary summary();

    /**
     * The nodes that wrote a beacon within {@code gendurable.nodes.retention}: what each serves
     * (FSMs, queues, rate limits, gates), what it runs now, its done and failed outcomes per queue
     * over the last hour and its step durations. A node is live while its beacon is no older than
     * three of its beacon intervals; a node that stopped cleanly is gone.
     *
     * @return the nodes, by id, as their beacons last described them, at the engine's clock
     */
    List<NodeStatus> nodes();


    /**
     * Cancels a live instance: it ends {@link Status#CANCELLED} with {@code reason} as its last
     * error, its gate slot comes back, signals to it answer {@link SignalResult#NO_TARGET}, and a
     * parent awaiting it counts it as finished (not succeeded). Its children are left running. If
     * a step runs for it, the cancel is a request ({@link Cancellation#pending()}): the step's
     * thread is interrupted, the instance keeps its key and slot until the step's code returns,
     * and the flush of that step's outcome discards it and ends the instance cancelled.
     *
     * @param id     the instance
     * @param reason why (kept as its last error); null for a default text
     * @return what was cancelled
     * @throws NoSuchInstanceException when there is no such instance
     * @throws InstanceStateException  when it has already ended
     */
    Cancellation cancel(long id, String reason);

    /**
     * {@link #cancel(long, String)}, and with {@code withDescendants} its live children, their
     * children and so on, in the same transaction.
     *
     * @param id              the instance
     * @param reason          why; null for a default text
     * @param withDescendants also cancel its live descendants
     * @return what was cancelled
     * @throws NoSuchInstanceException when there is no such instance
     * @throws InstanceStateException  when it has already ended
     */
    Cancellation cancel(long id, String reason, boolean withDescendants);

    /**
     * Runs a failed or cancelled instance again from the step it ended in, with its state,
     * attempts counted from 1. Its correlation key is taken again. A parent that already counted
     * it as finished does not wait for it again, and is not counted down by it a second time.
     *
     * @param id the instance
     * @return the instance, runnable
     * @throws NoSuchInstanceException     when there is no such instance
     * @throws InstanceStateException      when it is not failed or cancelled
     * @throws CorrelationKeyHeldException when another live instance holds its correlation key
     */
    InstanceSnapshot retry(long id);

    /**
     * {@link #retry(long)} from a named step and/or with a replacement state.
     *
     * @param id      the instance
     * @param options the step to start from, the state to use
     * @return the instance, runnable
     * @throws NoSuchInstanceException     when there is no such instance
     * @throws InstanceStateException      when it is not failed or cancelled
     * @throws CorrelationKeyHeldException when another live instance holds its correlation key
     * @throws IllegalArgumentException    when the replacement state is not of the FSM's state type
     */
    InstanceSnapshot retry(long id, RetryOptions options);

    /**
     * Makes a runnable instance due now.
     *
     * @param id the instance
     * @return the instance
     * @throws NoSuchInstanceException when there is no such instance
     * @throws InstanceStateException  when it is not runnable
     */
    InstanceSnapshot runNow(long id);

    /**
     * Makes a runnable instance due at {@code at}.
     *
     * @param id the instance
     * @param at when it becomes due
     * @return the instance
     * @throws NoSuchInstanceException when there is no such instance
     * @throws InstanceStateException  when it is not runnable
     */
    InstanceSnapshot reschedule(long id, Instant at);

    /**
     * Changes a runnable instance's priority (0 is picked first).
     *
     * @param id       the instance
     * @param priority 0 or more
     * @return the instance
     * @throws NoSuchInstanceException when there is no such instance
     * @throws InstanceStateException  when it is not runnable
     */
    InstanceSnapshot changePriority(long id, int priority);

    /**
     * Pauses a queue on every node, durably (a restart keeps it paused): no node claims from it
     * any more, steps already running finish, rows a node had prefetched go back to runnable
     * within one poll interval. Pausing a paused queue updates its reason.
     *
     * @param queue  the queue
     * @param reason why, or null
     */
    void pauseQueue(String queue, String reason);

    /**
     * Resumes a paused queue on every node.
     *
     * @param queue the queue
     * @return whether it was paused
     */
    boolean resumeQueue(String queue);

    /** @return the paused queues, by name */
    List<PausedQueue> pausedQueues();

    /**
     * Cancels every live instance the search finds, page by page (the query's page size is the
     * batch: one transaction per batch, locking its rows in id order), as {@link #cancel(long,
     * String)} does one: running steps fenced, gate slots returned, waiting parents told.
     *
     * @param query  the search; it must filter on something (a bulk action over every instance
     *               is refused)
     * @param reason why; null for a default text
     * @return how many matched and how many were cancelled
     * @throws IllegalArgumentException when the query has no filter
     */
    BulkResult cancelAll(InstanceQuery query, String reason);

    /**
     * Retries every failed or cancelled instance the search finds, as {@link #retry(long)} does
     * one (each in its own transaction, page by page).
     *
     * @param query the search; it must filter on something
     * @return how many matched and how many were retried
     * @throws IllegalArgumentException when the query has no filter
     */
    BulkResult retryAll(InstanceQuery query);

    /**
     * Deletes every ended ({@link Status#isTerminal()}) instance the search finds, with its
     * inbox, page by page, before the GC's retention would. A finished child whose parent has not
     * finished is kept (the parent still reads it), as the GC keeps it.
     *
     * @param query the search; it must filter on something
     * @return how many matched and how many were deleted
     * @throws IllegalArgumentException when the query has no filter
     */
    BulkResult purge(InstanceQuery query);

    /**
     * Every recurring schedule in the database ({@link DurableSchedule} and {@link #defineSchedule}),
     * by name.
     *
     * @return the schedules
     */
    List<ScheduleStatus> schedules();

    /**
     * Defines or replaces a schedule at run time; it is kept in the database, so every node that
     * has the FSM registered fires it, across restarts, until {@link #removeSchedule}. Replacing
     * one with another expression or zone recomputes its next fire time; a paused one stays paused.
     *
     * @param definition the schedule
     * @return the schedule as stored
     * @throws IllegalArgumentException naming the field: an invalid expression or zone, an FSM not
     *                                  registered on this node, a state its state type cannot hold
     */
    ScheduleStatus defineSchedule(ScheduleDefinition definition);

    /**
     * Removes a schedule. One declared by {@link DurableSchedule} comes back when a node whose
     * code still declares it starts.
     *
     * @param name the schedule
     * @return whether it existed
     */
    boolean removeSchedule(String name);

    /**
     * Pauses a schedule on every node: no fire time inserts an instance until it is resumed (what
     * was missed meanwhile follows its {@link MisfirePolicy}). Pausing a paused one updates its reason.
     *
     * @param name   the schedule
     * @param reason why, or null
     * @return the schedule
     * @throws IllegalArgumentException when there is no such schedule
     */
    ScheduleStatus pauseSchedule(String name, String reason);

    /**
     * Resumes a paused schedule.
     *
     * @param name the schedule
     * @return the schedule
     * @throws IllegalArgumentException when there is no such schedule
     */
    ScheduleStatus resumeSchedule(String name);

    /**
     * Inserts one instance of a schedule now, outside its fire times (its correlation key is
     * {@code schedule:<name>:manual:<now>}); the schedule's next fire time does not move, and a
     * paused schedule can be triggered.
     *
     * @param name the schedule
     * @return the inserted instance
     * @throws IllegalArgumentException when there is no such schedule, or its FSM is not registered here
     */
    Inserted triggerSchedule(String name);

    /**
     * The same operations, naming {@code operator} as who acts instead of the caller's principal:
     * in each action's log line, its {@link io.gendurable.events.OperatorAction}, and a paused
     * queue's or schedule's {@code pausedBy}. For an operator front end that authenticates its
     * users itself, so that the container knows no principal for the request (gen-durable-admin's
     * console sign-in keeps its user in an HTTP session).
     *
     * @param operator the name to record
     * @return operations acting for {@code operator}
     * @throws IllegalArgumentException when {@code operator} is null or blank
     */
    DurableOperations actingFor(String operator);
}
