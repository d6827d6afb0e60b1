package io.gendurable.impl.flush;

import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.flush.FlushWriter.Pending;
import io.gendurable.impl.runtime.EngineContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Group commit, its batching policy (docs/internals.md, "Group commit"); {@link FlushWriter}
 * writes each batch. Step threads hand their outcome here and go on. The waiting outcomes go into
 * one transaction at {@code maxBatch} outcomes or {@code maxDelay} after the first, with up to
 * {@code parallelism} transactions open; what arrives meanwhile goes next, together, so batches
 * grow with the load. With {@code maxDelay} 0 (adaptive, the default) an outcome that finds no
 * flush open is written at once by its own thread, and a further flush opens only once the newest
 * has run twice the recent mean flush time (a slow or stuck flush does not hold the next back for
 * long). A terminal child whose parent a flush in flight decrements waits for the next flush.
 */
public final class Flusher {
    /** Told after each commit, before the step threads resume: pokes and await waiters. */
    @FunctionalInterface
    public interface AfterCommit extends FlushListener {
        @Override
        void committed(List<Transition> committed, FlushSql.Flushed flushed);
    }

    private final EngineConfig.FlusherConfig config;
    private final FlushWriter writer;
    private final ScheduledExecutorService timer;
    // every field below is guarded by this lock
    private final Object lock = new Object();
    private List<Pending> pending = new ArrayList<>();
    // parents that a flush in flight decrements: their other children wait for the next flush
    // rather than meet that flush's parent lock (which the lock step would skip, deferring them)
    private final Map<Long, Integer> parentsInFlight = new HashMap<>();
    private int inFlight;
    // when each flush in flight opened (System.nanoTime), the first inFlight entries; and the recent mean flush
    private final long[] openSince;
    private long meanFlushNanos;
    private static final long MIN_OPEN_AFTER_NANOS = 1_000_000L;
    private boolean stopped;
    private ScheduledFuture<?> delayed;

    /**
     * The context's timer runs the flushes; a synchronous context (no timer) makes a synchronous
     * flusher, whose {@link #submit} writes the outcome in the caller's thread before it returns
     * (the test drain: no engine thread). An outcome whose row another transaction holds locked is
     * carried from flush to flush for up to the lease TTL before it fails to its step (by then its
     * claim is lost anyway, and the reaper re-runs the step).
     *
     * @param ctx         the engine's context
     * @param config      this flusher's queues, parallelism and delay
     * @param afterCommit told after each commit, first of this flusher's listeners
     */
    public Flusher(EngineContext ctx, EngineConfig.FlusherConfig config, FlushListener afterCommit) {
        this.config = config;
        this.writer = new FlushWriter(ctx, afterCommit);
        this.timer = ctx.timer();
        this.openSince = new long[config.parallelism()];
    }

    /**
     * @param row an outcome
     * @return completes when the outcome is durable (or stale); fails when the database could not
     * take it (the row's lease then expires and the reaper re-runs the step)
     */
    public CompletableFuture<Written> submit(Transition row) {
        return submit(row, null);
    }

    /**
     * @param row     an outcome
     * @param history its step history record, written with it if it commits; or null
     * @return completes when the outcome is durable (or stale); fails when the database could not
     * take it (the row's lease then expires and the reaper re-runs the step)
     */
    public CompletableFuture<Written> submit(Transition row, StepHistory history) {
        return submit(row, history, null);
    }

    /**
     * @param row     an outcome
     * @param history its step history record, written with it if it commits; or null
     * @param handedOver run once the outcome is queued and before this thread writes it itself (with
     *                a free flush slot and no delay, the submitting thread writes the batch): the
     *                step's code is done, so its slot may run another step while this one commits; or null
     * @return completes when the outcome is durable (or stale); fails when the database could not
     * take it (the row's lease then expires and the reaper re-runs the step)
     */
    public CompletableFuture<Written> submit(Transition row, StepHistory history, Runnable handedOver) {
        Pending p = new Pending(row, history);
        boolean here = false;
        synchronized (lock) {
            if (stopped) {
                p.done.completeExceptionally(new IllegalStateException("the flusher is stopped"));
                return p.done;
            }
            pending.add(p);
            if (timer == null) {
                // synchronous: flushed below, in this thread
            } else if (inFlight < config.parallelism()) {
                if (pending.size() >= config.maxBatch() || config.maxDelay().isZero() && mayOpen(System.nanoTime())) {
                    cancelDelayed();
                    // A free slot: the submitting (step) thread, which would only block on the
                    // outcome anyway, writes the batch itself: no hand-off to the timer and back.
                    here = true;
                } else if (config.maxDelay().isZero()) {
                    openLater(System.nanoTime());
                } else if (delayed == null || delayed.isDone()) {
                    delayed = timer.schedule(this::flush, config.maxDelay().toNanos(), TimeUnit.NANOSECONDS);
                }
            }
        }
        if (handedOver != null) {
            handedOver.run();
        }
        if (here) {
            flush();
        } else if (timer == null) {
            for (int round = 0; !p.done.isDone(); round++) {
                if (round > 0) {
                    FlushWriter.sleepQuietly(Math.min(100, 5L << Math.min(round, 5)));  // deferred: its row is locked elsewhere
                }
                flush();
            }
        }
        return p.done;
    }

    /** @param listener from now on, told around this flusher's transactions (and may claim in them) */
    public void addListener(FlushListener listener) {
        writer.add(listener);
    }

    /** @param listener no longer told */
    public void removeListener(FlushListener listener) {
        writer.remove(listener);
    }

    /** @return whether a flush is running or outcomes wait for one: a rider's claim will run soon */
    public boolean flushing() {
        synchronized (lock) {
            return inFlight > 0 || !pending.isEmpty();
        }
    }

    /** Flushes what waits, then refuses new outcomes. Idempotent. */
    public void stop(Duration timeout) {
        synchronized (lock) {
            stopped = true;
        }
        flush();
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while ((inFlight > 0 || !pending.isEmpty()) && System.nanoTime() < deadline) {
                try {
                    lock.wait(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            // Whatever is still carried (rows locked elsewhere) fails to its step: its lease expires.
            for (Pending p : pending) {
                p.done.completeExceptionally(new IllegalStateException("the flusher stopped before the row of instance "
                        + p.row.id() + " was unlocked by another transaction; its outcome was not written"));
            }
            pending = new ArrayList<>();
        }
    }

    /** Runs one flush of everything waiting, in the calling thread. Package-visible for tests. */
    void flush() {
        List<Pending> batch;
        List<Long> parents = new ArrayList<>();
        long opened;
        synchronized (lock) {
            if (inFlight >= config.parallelism() || pending.isEmpty()) {
                return;
            }
            opened = System.nanoTime();
            if (timer != null && config.maxDelay().isZero() && pending.size() < config.maxBatch() && !mayOpen(opened)) {
                // the flush in flight is young: these join the batch after it, or open one when it gets old
                // (this may be that delayed flush itself, not done while it runs: schedule afresh)
                cancelDelayed();
                openLater(opened);
                return;
            }
            batch = new ArrayList<>(pending.size());
            List<Pending> held = new ArrayList<>();
            for (Pending p : pending) {
                Long parent = p.joins();
                if (parent != null && parentsInFlight.containsKey(parent)) {
                    held.add(p);
                } else {
                    batch.add(p);
                    if (parent != null) {
                        parents.add(parent);
                    }
                }
            }
            if (batch.isEmpty()) {
                return;  // the flush in flight that holds their parents schedules them when it ends
            }
            inFlight++;
            openSince[inFlight - 1] = opened;
            cancelDelayed();
            pending = held;
            parents.forEach(id -> parentsInFlight.merge(id, 1, Integer::sum));
        }
        List<Pending> deferred = List.of();
        try {
            deferred = writer.write(batch);
        } finally {
            synchronized (lock) {
                closed(opened);
                parents.forEach(id -> parentsInFlight.computeIfPresent(id, (k, n) -> n > 1 ? n - 1 : null));
                pending.addAll(deferred);
                lock.notifyAll();
                if (!pending.isEmpty() && timer != null) {
                    if (pending.size() > deferred.size()) {
                        // These waited for a free slot: write them now, all together.
                        timer.execute(this::flush);
                    } else if (delayed == null || delayed.isDone()) {
                        // Only outcomes whose rows are locked elsewhere: try again shortly.
                        delayed = timer.schedule(this::flush, Math.max(config.maxDelay().toNanos(), 5_000_000L),
                                TimeUnit.NANOSECONDS);
                    }
                }
            }
            writer.ended();
        }
    }

    /**
     * Adaptive group commit ({@code maxDelay} 0): a flush opens at once when none is in flight;
     * a further one only once the newest flush in flight has run for {@link #openAfterNanos} (twice
     * the recent mean flush, at least {@value #MIN_OPEN_AFTER_NANOS} ns). Under load the outcomes
     * that arrive meanwhile go together right after it (one commit for all), so the batch grows
     * with the load; a flush that is slow or stuck on a lock still does not hold the next one back
     * for long. Called under the lock.
     */
    private boolean mayOpen(long now) {
        return inFlight == 0 || now - newestOpen() >= openAfterNanos();
    }

    /** @return when the newest flush in flight opened (there is one). Under the lock. */
    private long newestOpen() {
        long newest = Long.MIN_VALUE;
        for (int i = 0; i < inFlight; i++) {
            newest = Math.max(newest, openSince[i]);
        }
        return newest;
    }

    /** Schedules the flush for when {@link #mayOpen} will let it open (the finishing flush may run it sooner). Under the lock. */
    private void openLater(long now) {
        if (delayed != null && !delayed.isDone()) {
            return;
        }
        long wait = Math.max(1L, newestOpen() + openAfterNanos() - now);
        delayed = timer.schedule(this::flush, wait, TimeUnit.NANOSECONDS);
    }

    /** @return how long the newest flush in flight runs before another may open */
    private long openAfterNanos() {
        return Math.max(MIN_OPEN_AFTER_NANOS, 2 * meanFlushNanos);
    }

    /** A flush opened at {@code opened} ended: its slot goes back, and its duration joins the mean. Under the lock. */
    private void closed(long opened) {
        for (int i = 0; i < inFlight; i++) {
            if (openSince[i] == opened) {
                openSince[i] = openSince[inFlight - 1];
                break;
            }
        }
        inFlight--;
        long took = System.nanoTime() - opened;
        meanFlushNanos = meanFlushNanos == 0 ? took : meanFlushNanos + (took - meanFlushNanos) / 8;
    }

    private void cancelDelayed() {
        if (delayed != null) {
            delayed.cancel(false);
            delayed = null;
        }
    }
}
