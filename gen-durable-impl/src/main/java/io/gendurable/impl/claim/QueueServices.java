package io.gendurable.impl.claim;

import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.keys.KeyBlocking;

import java.util.List;
import java.util.function.Consumer;

/**
 * The node-wide services every queue's {@link Scheduler} shares: one instance each per engine.
 *
 * @param limiter admits the claimed rows that name a gate or a rate limit
 * @param pauses  the paused queues: while its queue is paused, a scheduler starts nothing and gives its prefetched rows back
 * @param keys    told how long each claim took (a long one blocks the rows busy K = 1 keys hold back)
 * @param finishCancels ends cancelled the claims given back with a cancel requested (they never ran)
 */
public record QueueServices(Limiter limiter, PausedQueues pauses, KeyBlocking keys,
                            Consumer<List<Long>> finishCancels) {
    /** Services whose released cancel-requested rows are left to the reaper (the test drain). */
    public QueueServices(Limiter limiter, PausedQueues pauses, KeyBlocking keys) {
        this(limiter, pauses, keys, ids -> { });
    }
}
