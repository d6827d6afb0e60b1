package io.gendurable.impl.claim;

import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.keys.KeyBlocking;

/**
 * The node-wide services every queue's {@link Scheduler} shares: one instance each per engine.
 *
 * @param limiter admits the claimed rows that name a gate or a rate limit
 * @param pauses  the paused queues: while its queue is paused, a scheduler starts nothing and gives its prefetched rows back
 * @param keys    told how long each claim took (a long one blocks the rows busy K = 1 keys hold back)
 */
public record QueueServices(Limiter limiter, PausedQueues pauses, KeyBlocking keys) {
}
