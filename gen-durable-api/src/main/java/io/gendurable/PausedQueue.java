package io.gendurable;

import java.time.Instant;

/**
 * A queue no node claims from ({@link DurableOperations#pauseQueue}).
 *
 * @param queue    the queue
 * @param pausedAt when it was paused
 * @param pausedBy the principal who paused it, or null
 * @param reason   the reason given, or null
 */
public record PausedQueue(String queue, Instant pausedAt, String pausedBy, String reason) {
}
