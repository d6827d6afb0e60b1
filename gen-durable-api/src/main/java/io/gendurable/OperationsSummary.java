package io.gendurable;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What {@link DurableOperations#summary()} answers: per queue, the instances in each status and
 * the age of the oldest due runnable instance, as committed at one instant; and the queues'
 * alerts, measured against the live nodes' beacons ({@link DurableOperations#nodes()}).
 *
 * @param at     the instant the ages are measured at (the engine's clock)
 * @param queues one line per queue that has instances, in queue name order
 * @param alerts what needs an operator's eye, by queue name then kind: a queue with runnable
 *               instances that no live node serves, a rate-limit name no live node configures
 */
public record OperationsSummary(Instant at, List<QueueSummary> queues, List<QueueAlert> alerts) {
    /**
     * Copies the lists.
     *
     * @param at the instant the ages are measured at
     * @param queues one line per queue, in name order
     * @param alerts the alerts (null for none)
     */
    public OperationsSummary {
        java.util.Objects.requireNonNull(at, "at must not be null");
        queues = List.copyOf(queues);
        alerts = alerts == null ? List.of() : List.copyOf(alerts);
    }

    /**
     * A summary without alerts.
     *
     * @param at the instant the ages are measured at
     * @param queues one line per queue, in name order
     */
    public OperationsSummary(Instant at, List<QueueSummary> queues) {
        this(at, queues, List.of());
    }

    /**
     * @param alerts the alerts
     * @return this summary with {@code alerts}
     */
    public OperationsSummary withAlerts(List<QueueAlert> alerts) {
        return new OperationsSummary(at, queues, alerts);
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
