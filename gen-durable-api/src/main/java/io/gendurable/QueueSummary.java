package io.gendurable;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * One queue's line of the {@link OperationsSummary}.
 *
 * @param queue               the queue
 * @param counts              instances per status; every status is present (0 when there is none)
 * @param oldestRunnableSince the earliest {@code eligibleAt} among the queue's runnable instances
 *                            that are due, or null when none is due
 * @param oldestRunnableAge   how long that instance has been due at the summary's instant
 *                            ({@link Duration#ZERO} when none is due): a queue no node serves, or
 *                            that cannot keep up, shows it growing
 * @param paused              whether the queue is paused ({@link DurableOperations#pauseQueue}): a
 *                            paused queue is listed even when it holds no instance
 */
public record QueueSummary(String queue, Map<Status, Long> counts, Instant oldestRunnableSince,
                           Duration oldestRunnableAge, boolean paused) {
    /**
     * Fills the missing statuses with 0 and copies the map.
     *
     * @param queue the queue
     * @param counts instances per status
     * @param oldestRunnableSince the earliest eligibleAt of a due runnable instance, or null
     * @param oldestRunnableAge how long it has been due, or null for zero
     * @param paused whether the queue is paused
     */
    public QueueSummary {
        Validation.requireName("queue", queue);
        EnumMap<Status, Long> all = new EnumMap<>(Status.class);
        for (Status s : Status.values()) {
            Long n = counts == null ? null : counts.get(s);
            all.put(s, n == null ? 0L : n);
        }
        counts = Collections.unmodifiableMap(all);
        oldestRunnableAge = oldestRunnableAge == null || oldestRunnableAge.isNegative() ? Duration.ZERO : oldestRunnableAge;
    }

    /**
     * @param status a status
     * @return how many of the queue's instances have it
     */
    public long count(Status status) {
        return counts.get(status);
    }

    /** @return every instance of the queue, whatever its status */
    public long total() {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }
}
