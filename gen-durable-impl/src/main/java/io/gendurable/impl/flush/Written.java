package io.gendurable.impl.flush;

/**
 * What became of an outcome handed to the {@link Flusher}, with the claim's fencing token afterwards.
 *
 * @param result what became of it
 * @param token  for a committed inline continue, the new token its next step must present;
 *               otherwise the token it was written with
 */
public record Written(Result result, long token) {
    /** What became of an outcome. */
    public enum Result {
        /** it committed */
        COMMITTED,
        /** an inline continue committed, and the row has signals for its next step to load */
        COMMITTED_WITH_SIGNALS,
        /** its ownership guard failed: nothing committed (the row was reclaimed) */
        STALE,
        /**
         * a cancel was requested while its step ran: the outcome was discarded and the row ended
         * cancelled, its slot and key released, in the outcome's flush
         */
        CANCELLED
    }
}
