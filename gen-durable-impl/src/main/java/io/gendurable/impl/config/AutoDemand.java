package io.gendurable.impl.config;

import java.time.Duration;

/**
 * The auto rules of {@code gendurable.prefetch} and {@code gendurable.min-demand} (value
 * {@link ConfigKeys#AUTO}): their constants and formulas, read by the code that applies them and
 * by the keys' documentation lines in {@link ConfigKeys}, so the two cannot drift apart.
 * See docs/internals.md ("The queue loop").
 */
public final class AutoDemand {
    /** The most rows an auto prefetch grows to, unless the concurrency is larger. */
    public static final int PREFETCH_CEILING = 256;
    /** A row that waited this long in the buffer halves an auto prefetch: the steps are slow. */
    public static final Duration BUFFER_WAIT = Duration.ofMillis(100);
    /** An auto min-demand is the concurrency plus the prefetch divided by this... */
    public static final int MIN_DEMAND_DIVISOR = 4;
    /** ...which the documentation calls this. */
    private static final String MIN_DEMAND_SHARE = "a quarter";

    /** The documentation line of {@code gendurable.prefetch}, from the rules above. */
    static final String PREFETCH_DOC = "Rows each queue claims beyond its free slots and holds in memory (heartbeated; "
            + "released on stop). -1 (the default) adapts: it starts at the queue's concurrency, doubles (up to "
            + PREFETCH_CEILING + ", or the concurrency if larger) while short steps drain the buffer before the next "
            + "claim, and halves (down to the concurrency) once a row waits in the buffer longer than "
            + BUFFER_WAIT.toMillis() + " ms.";
    /** The documentation line of {@code gendurable.min-demand}, from the rules above. */
    static final String MIN_DEMAND_DOC = "Skip a claim unless at least this many slots are free. -1 (the default): "
            + MIN_DEMAND_SHARE + " of the queue's concurrency plus its prefetch (as it is now, when auto), at least 1.";

    private AutoDemand() {
    }

    /** @param concurrency a queue's concurrency @return the prefetch an auto prefetch starts at */
    public static int initialPrefetch(int concurrency) {
        return concurrency;
    }

    /** @param concurrency a queue's concurrency @return the most rows an auto prefetch grows to */
    public static int prefetchCeiling(int concurrency) {
        return Math.max(concurrency, PREFETCH_CEILING);
    }

    /**
     * @param concurrency a queue's concurrency
     * @param prefetch    its prefetch now
     * @return the fewest free slots (plus prefetch) an auto min-demand finds worth a claim
     */
    public static int minDemand(int concurrency, int prefetch) {
        return Math.max(1, (concurrency + prefetch) / MIN_DEMAND_DIVISOR);
    }
}
