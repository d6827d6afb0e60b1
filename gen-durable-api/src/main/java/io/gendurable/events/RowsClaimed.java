package io.gendurable.events;

/**
 * A claim of a queue ran on this node (a pick): how many rows it kept of those it asked for.
 *
 * @param queue  the queue
 * @param node   this node's id ({@code gendurable.node-id})
 * @param count  rows claimed and admitted (rows a gate or a rate limit denied are not counted)
 * @param demand rows the claim asked for: free slots plus prefetch, less what was running and buffered
 */
public record RowsClaimed(String queue, String node, int count, int demand) implements EngineEvent {
}
