package io.gendurable;

import java.time.Instant;
import java.util.List;

/**
 * A read of one instance row, as committed.
 *
 * @param id              the id
 * @param fsm             the FSM name
 * @param fsmVersion      the FSM version
 * @param step            the current (or last) step
 * @param status          the status
 * @param attempt         the attempt of the current step, 1 for the first run
 * @param queue           the queue
 * @param priority        the priority, lower first
 * @param eligibleAt      not picked before this instant
 * @param correlationKey  the business key, or null
 * @param concurrencyKey  the concurrency key, or null
 * @param awaits          the awaited signal names while parked, else empty
 * @param awaitDeadline   the await deadline, or null
 * @param parentId        the parent's id for a child, else null
 * @param childrenPending children not yet terminal
 * @param state           the state
 * @param result          the result (JSON null until done)
 * @param lastError       the last error, or null
 * @param insertedAt      when it was inserted
 * @param updatedAt       when it last changed (the termination instant for terminal rows)
 */
public record InstanceSnapshot(long id, String fsm, int fsmVersion, String step, Status status,
                               int attempt, String queue, int priority, Instant eligibleAt, String correlationKey,
                               String concurrencyKey, List<String> awaits, Instant awaitDeadline, Long parentId,
                               int childrenPending, DurableValue state, DurableValue result, String lastError,
                               Instant insertedAt, Instant updatedAt) {
    /**
     * Copies the list.
     *
     * @param id the id
     * @param fsm the FSM name
     * @param fsmVersion the FSM version
     * @param step the current (or last) step
     * @param status the status
     * @param attempt the attempt of the current step, 1 for the first run
     * @param queue the queue
     * @param priority the priority, lower first
     * @param eligibleAt not picked before this instant
     * @param correlationKey the business key, or null
     * @param concurrencyKey the concurrency key, or null
     * @param awaits the awaited signal names while parked, else empty
     * @param awaitDeadline the await deadline, or null
     * @param parentId the parent's id for a child, else null
     * @param childrenPending children not yet terminal
     * @param state the state
     * @param result the result (JSON null until done)
     * @param lastError the last error, or null
     * @param insertedAt when it was inserted
     * @param updatedAt when it last changed (the termination instant for terminal rows)
     */
    public InstanceSnapshot {
        awaits = awaits == null ? List.of() : List.copyOf(awaits);
    }
}
