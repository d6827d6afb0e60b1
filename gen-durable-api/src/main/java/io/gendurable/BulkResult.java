package io.gendurable;

/**
 * What a bulk action ({@link DurableOperations#cancelAll}, {@link DurableOperations#retryAll},
 * {@link DurableOperations#purge}) did, over every page of its search.
 *
 * @param matched the instances the search returned
 * @param applied those the action changed
 * @param skipped those it left alone: not in a status the action applies to by the time their
 *                batch ran, deleted meanwhile, or (a retry) holding a correlation key another live
 *                instance has taken
 */
public record BulkResult(int matched, int applied, int skipped) {
}
