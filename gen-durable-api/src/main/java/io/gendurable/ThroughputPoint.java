package io.gendurable;

import java.time.Instant;

/**
 * One minute of one queue's committed outcomes on one node ({@link NodeStatus#throughput()}).
 *
 * @param queue     the queue
 * @param minute    the minute's first instant (UTC, seconds zero)
 * @param completed instances that ended {@link Status#DONE} on this node in that minute
 * @param failed    instances that ended {@link Status#FAILED} on this node in that minute
 */
public record ThroughputPoint(String queue, Instant minute, long completed, long failed) {
}
