package io.gendurable.impl.core;

import io.gendurable.impl.sql.Db;
import io.gendurable.impl.sql.FlushSql;
import io.gendurable.impl.sql.UnknownCommitException;
import io.gendurable.impl.sql.OutcomeRow;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Group commit. Step threads hand their outcome here and block until it is durable; the
 * flusher coalesces every waiting outcome into ONE transaction ({@link FlushSql}): at
 * {@code maxBatch} outcomes, or {@code maxDelay} after the first. Up to {@code parallelism}
 * flush transactions are open at once: outcomes that arrive while one commits start the next
 * (after {@code maxDelay}, or at once at {@code maxBatch}), and when every slot is busy they wait
 * and go all together right after, so the batch grows with the load. Two open flushes of one
 * node touch disjoint rows and are no different from two nodes' flushes, which the lock order
 * of {@link FlushSql} already serializes where they meet (parents, gate counters).
 */
public final class Flusher {
    private static final Logger LOG = System.getLogger("io.gendurable");
    private static final int ATTEMPTS = 3;

    /** What became of an outcome. */
    public enum Result {
        /** it committed */
        COMMITTED,
        /** an inline continue committed, and the row has signals for its next step to load */
        COMMITTED_WITH_SIGNALS,
        /** its ownership guard failed: nothing committed (the row was reclaimed) */
        STALE
    }

    private record Pending(OutcomeRow row, CompletableFuture<Result> done) {
    }

    /** Told after each commit, before the step threads resume: pokes and await waiters. */
    public interface AfterCommit {
        /**
         * @param committed the committed transitions (stale ones excluded)
         * @param flushed   what the riders did: rows they made runnable, queues that got children
         */
        void committed(List<OutcomeRow> committed, FlushSql.Flushed flushed);
    }

    private final EngineConfig.FlusherConfig config;
    private final Db db;
    private final FlushSql sql;
    private final ScheduledExecutorService timer;
    private final InstantSource clock;
    private final EngineMetrics metrics;
    private final AfterCommit afterCommit;
    private final EngineEvents events;
    private final Object lock = new Object();
    private List<Pending> pending = new ArrayList<>();
    private int inFlight;
    private boolean stopped;
    private ScheduledFuture<?> delayed;

    /**
     * @param timer runs the flushes; null makes a synchronous flusher, whose {@link #submit} writes
     *              the outcome in the caller's thread before it returns (the test drain: no engine thread)
     */
    public Flusher(EngineConfig.FlusherConfig config, Db db, FlushSql sql, ScheduledExecutorService timer,
                   InstantSource clock, EngineMetrics metrics, AfterCommit afterCommit, EngineEvents events) {
        this.afterCommit = afterCommit;
        this.events = events;
        this.config = config;
        this.db = db;
        this.sql = sql;
        this.timer = timer;
        this.clock = clock;
        this.metrics = metrics;
    }

    /**
     * @param row an outcome
     * @return completes when the outcome is durable (or stale); fails when the database could not
     * take it (the row's lease then expires and the reaper re-runs the step)
     */
    public CompletableFuture<Result> submit(OutcomeRow row) {
        Pending p = new Pending(row, new CompletableFuture<>());
        synchronized (lock) {
            if (stopped) {
                p.done.completeExceptionally(new IllegalStateException("the flusher is stopped"));
                return p.done;
            }
            pending.add(p);
            if (timer == null) {
                // synchronous: flushed below, in this thread
            } else if (inFlight < config.parallelism()) {
                if (pending.size() >= config.maxBatch() || config.maxDelay().isZero()) {
                    cancelDelayed();
                    timer.execute(this::flush);
                } else if (delayed == null) {
                    delayed = timer.schedule(this::flush, config.maxDelay().toNanos(), TimeUnit.NANOSECONDS);
                }
            }
        }
        if (timer == null) {
            flush();
        }
        return p.done;
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
        }
    }

    /** Runs one flush of everything waiting, in the calling thread. Package-visible for tests. */
    void flush() {
        List<Pending> batch;
        synchronized (lock) {
            if (inFlight >= config.parallelism() || pending.isEmpty()) {
                return;
            }
            inFlight++;
            cancelDelayed();
            batch = pending;
            pending = new ArrayList<>();
        }
        try {
            write(batch);
        } finally {
            synchronized (lock) {
                inFlight--;
                lock.notifyAll();
                if (!pending.isEmpty() && timer != null) {
                    // These waited for a free slot: write them now, all together.
                    timer.execute(this::flush);
                }
            }
        }
    }

    private void write(List<Pending> batch) {
        List<OutcomeRow> rows = batch.stream().map(Pending::row).toList();
        RuntimeException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                long t0 = System.nanoTime();
                FlushSql.Flushed flushed = db.inTransaction(c -> sql.flush(c, rows, clock.instant()));
                notify(() -> events.flushed(rows.size(), System.nanoTime() - t0));
                Set<Long> committed = flushed.committed();
                metrics.flushes.increment();
                metrics.flushedOutcomes.add(rows.size());
                List<OutcomeRow> done = new ArrayList<>(committed.size());
                for (Pending p : batch) {
                    if (committed.contains(p.row.id())) {
                        done.add(p.row);
                    } else {
                        metrics.stale.increment();
                    }
                }
                try {
                    afterCommit.committed(done, flushed);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "gen-durable: an after-commit hook failed (pokes and await waiters): " + e);
                }
                for (Pending p : batch) {
                    p.done.complete(!committed.contains(p.row.id()) ? Result.STALE
                            : flushed.continuingWithSignals().contains(p.row.id()) ? Result.COMMITTED_WITH_SIGNALS
                            : Result.COMMITTED);
                }
                return;
            } catch (UnknownCommitException e) {
                // Never write these again: if the commit landed, the rows are runnable, this very
                // worker may already have claimed one again (same worker id, same attempt), and a
                // second write of the old outcome would pass the guard and undo that running claim.
                // If it did not land, the leases expire and the reaper re-runs the steps.
                metrics.flushErrors.increment();
                LOG.log(Level.WARNING, "gen-durable flush of " + rows.size() + " outcomes: " + e.getMessage()
                        + "; not writing them again (their steps re-run after lease expiry if it was not applied)");
                for (Pending p : batch) {
                    p.done.completeExceptionally(e);
                }
                return;
            } catch (RuntimeException e) {
                last = e;
                metrics.flushErrors.increment();
                LOG.log(Level.WARNING, "gen-durable flush of " + rows.size() + " outcomes failed (attempt "
                        + attempt + " of " + ATTEMPTS + "): " + e);
                sleepQuietly(50L * attempt);
            }
        }
        if (batch.size() > 1) {
            // One outcome the database refuses must not sink its neighbours: write them one by one.
            LOG.log(Level.WARNING, "gen-durable: writing the " + batch.size() + " outcomes of a failed flush one by one");
            for (Pending p : batch) {
                write(List.of(p));
            }
            return;
        }
        for (Pending p : batch) {
            p.done.completeExceptionally(last);
        }
    }

    private static void notify(Runnable observer) {
        try {
            observer.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: an engine observer failed: " + e);
        }
    }

    private void cancelDelayed() {
        if (delayed != null) {
            delayed.cancel(false);
            delayed = null;
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
