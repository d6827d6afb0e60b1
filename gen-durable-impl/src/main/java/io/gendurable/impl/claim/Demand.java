package io.gendurable.impl.claim;

import io.gendurable.impl.config.AutoDemand;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.config.EngineConfig;

/**
 * How many rows a queue's claim asks for (docs/internals.md, "The claim"): free slots plus the
 * prefetch, less what is running and buffered; no claim below the minimum demand. The auto rules'
 * constants and formulas live in {@link AutoDemand}, which the keys' documentation reads too: an
 * auto prefetch starts at the concurrency, doubles while short steps starve the slots (up to
 * {@link AutoDemand#prefetchCeiling}) and halves when a row waits in the buffer over
 * {@link AutoDemand#BUFFER_WAIT}.
 */
final class Demand {
    /** A row that waited this long in the buffer halves an auto prefetch (slow steps). */
    static final long BUFFER_WAIT_NANOS = AutoDemand.BUFFER_WAIT.toNanos();

    private final int concurrency;
    private final boolean adaptive;
    private final int ceiling;
    private final int configuredMin;
    // rows buffered beyond the running slots: fixed when configured; auto (-1, the default) adapts
    // between the concurrency and the ceiling. Any thread: the claim's grows it, a step's halves it
    private volatile int prefetch;
    // the last claim filled its whole demand: the queue has more runnable rows, so the next claim
    // rides a flush. Written by the holder of the claim flag (ClaimInFlush), read by any thread
    private volatile boolean backlogged;

    Demand(EngineConfig.PollConfig poll, int concurrency) {
        this.concurrency = concurrency;
        this.prefetch = poll.prefetchFor(concurrency);
        this.adaptive = poll.prefetch() == ConfigKeys.AUTO;
        this.ceiling = autoPrefetchCeiling(concurrency);
        this.configuredMin = poll.minDemand();
    }

    /**
     * The most rows an auto prefetch grows to ({@link AutoDemand#prefetchCeiling}). It grows only
     * while short steps empty the buffer before the next claim and halves once a row waits long in
     * the buffer, so slow steps keep it small whatever this ceiling. Buffered rows are rows other
     * nodes cannot take, so it stays below the waiters' bound.
     *
     * @param concurrency the queue's concurrency
     * @return the ceiling
     */
    static int autoPrefetchCeiling(int concurrency) {
        return AutoDemand.prefetchCeiling(concurrency);
    }

    /** @return the rows this queue buffers beyond its running slots now */
    int prefetch() {
        return prefetch;
    }

    /** @return the last claim filled its whole demand */
    boolean backlogged() {
        return backlogged;
    }

    /** A claim asked for {@code asked} rows and got {@code got}: the queue is backlogged when it got them all. */
    void claimed(int got, int asked) {
        backlogged = got >= asked;
    }

    /** @return free slots plus prefetch, less what is running and buffered: the rows a claim asks for now */
    int of(Slots slots) {
        return concurrency + prefetch - slots.taken() - slots.buffered();
    }

    /** @return the fewest rows worth a claim: as configured, or (auto) a quarter of the concurrency plus the prefetch now */
    int min() {
        return configuredMin == ConfigKeys.AUTO ? AutoDemand.minDemand(concurrency, prefetch) : configuredMin;
    }

    /**
     * Auto prefetch grows on a busy queue whose slots starve: a claim finds the buffer empty and
     * slots free while the last claim filled its whole demand (short steps drain the buffer before
     * the next claim's round trip ends), so the next claims ask for twice as many rows, up to
     * {@link #autoPrefetchCeiling}: fewer, larger claims and flushes.
     */
    void adapt(Slots slots) {
        int p = prefetch;
        if (adaptive && backlogged && p < ceiling && slots.bufferEmpty() && slots.taken() < concurrency) {
            prefetch = Math.min(ceiling, 2 * p);
        }
    }

    /**
     * A buffered row starts: one that waited longer than {@link #BUFFER_WAIT_NANOS} halves an auto
     * prefetch, down to the concurrency (slow steps: rows held here are rows another node could run).
     *
     * @param bufferedAt when it entered the buffer ({@link System#nanoTime()})
     */
    void started(long bufferedAt) {
        if (adaptive && System.nanoTime() - bufferedAt > BUFFER_WAIT_NANOS) {
            prefetch = Math.max(concurrency, prefetch / 2);
        }
    }
}
