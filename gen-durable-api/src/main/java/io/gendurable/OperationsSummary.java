package io.gendurable;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What {@link DurableOperations#summary()} answers: per queue, the instances in each status and
 * the age of the oldest due runnable instance, as committed at one instant.
 *
 * @param at     the instant the ages are measured at (the engine's clock)
 * @param queues one line per queue that has instances, in queue name order
 */
public record OperationsSummary(Instant at, List<QueueSummary> queues) {
    /**
     * Copies the list.
     *
     * @param at the instant the ages are measured at
     * @param queues one line per queue, in name order
     */
    public OperationsSummary {
        java.util.Objects.requireNonNull(at, "at must not be null");
        queues = List.copyOf(queues);
    }

    /**
     * @param queue a queue name
     * @return its line, empty when the queue has no instance
     */
    public Optional<QueueSummary> queue(String queue) {
        return queues.stream().filter(q -> q.queue().equals(queue)).findFirst();
    }

    /**
     * @param status a status
     * @return how many instances have it, over every queue
     */
    public long count(Status status) {
        return queues.stream().mapToLong(q -> q.count(status)).sum();
    }
}
