package io.gendurable;

import java.util.List;
import java.util.Optional;

/**
 * One page of a {@link DurableOperations#search(InstanceQuery) search}: the instances in the
 * query's order, and where the next page starts.
 *
 * @param items      the instances, at most the query's page size, in the query's order
 * @param nextCursor where the next page starts ({@code query.after(nextCursor)}), or null when
 *                   this is the last page; opaque, valid for queries of the same order
 */
public record InstancePage(List<InstanceSnapshot> items, String nextCursor) {
    /**
     * Copies the list.
     *
     * @param items the instances, in the query's order
     * @param nextCursor where the next page starts, or null on the last page
     */
    public InstancePage {
        items = List.copyOf(items);
    }

    /** @return the next page's cursor, empty on the last page */
    public Optional<String> next() {
        return Optional.ofNullable(nextCursor);
    }

    /** @return true when there is a page after this one */
    public boolean hasNext() {
        return nextCursor != null;
    }
}
