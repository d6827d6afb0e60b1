package io.gendurable.events;

/**
 * A pass of this node's GC deleted or corrected something (one per pass that did).
 *
 * @param rows    ended instances ({@code done}, {@code failed}, {@code cancelled}) deleted
 * @param buckets idle or orphaned rate-limit bucket shards deleted
 * @param gates   gate counter shards the reconciler corrected, created or deleted
 */
public record GcSwept(int rows, int buckets, int gates) implements EngineEvent {
}
