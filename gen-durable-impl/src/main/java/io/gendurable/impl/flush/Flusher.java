package io.gendurable.impl.flush;

import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.UnknownCommitException;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.runtime.EngineMetrics;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
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
 * and go all together right after, so the batch grows with the load. With {@code maxDelay} 0
 * (the default) this is adaptive group commit: an outcome that finds no flush open is written at
 * once, by the submitting thread itself (no hand-off); a further flush opens only once the newest
 * open one has run twice the recent mean flush time (a slow or stuck flush does not hold the
 * next back for long), and the outcomes that arrive meanwhile form the next batch, which a
 * finishing flush hands to the timer: under load the batch grows with it. Two open flushes of one
 * node touch disjoint rows and are no different from two nodes' flushes, which the lock order
 * of {@link FlushSql} already serializes where they meet (parents, gate counters); a terminal
 * child whose parent a flush in flight decrements waits for the next flush.
 * A flush never waits on a lock held elsewhere: an outcome whose row (or parent) another
 * transaction holds locked, such as a caller's open JTA transaction that signalled it, is
 * carried to a later flush (counted in {@code flushDeferred}) for up to {@code deferLimit}.
 */
public final class Flusher {
    private static final Logger LOG = System.getLogger("io.gendurable.flush");
    private static final int ATTEMPTS = 3;

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

    /**
     * What became of an outcome, with the claim's fencing token afterwards.
     *
     * @param result what became of it
     * @param token  for a committed inline continue, the new token its next step must present;
     *               otherwise the token it was written with
     */
    public record Written(Result result, long token) {
    }

    private static final class Pending {
        final Transition row;
        final StepHistory history;
        final CompletableFuture<Written> done = new CompletableFuture<>();
        /** System.nanoTime() when a flush first had to defer it, or 0 */
        long deferredSince;

        Pending(Transition row, StepHistory history) {
            this.row = row;
            this.history = history;
        }

        /** @return the parent a terminal child decrements when it commits, or null */
        Long joins() {
            return row.joins();
        }
    }

    /**
     * A queue's scheduler that may claim its next rows inside a flush's transaction, so a busy
     * queue pays one commit for its outcomes and its next claim instead of two.
     */
    public interface ClaimRider {
        /**
         * Asked at the start of each flush transaction.
         *
         * @return the claim to run as that transaction's first statement, or null (the queue is not
         * busy, has too few free slots, or its own fill is under way)
         */
        RiddenClaim ride();

        /** Told after each flush transaction ended (committed or not): a fill left to the next flush may claim now. */
        void flushEnded();
    }

    /** One claim riding a flush transaction; exactly one of {@link #committed} and {@link #abandoned} follows {@link #claim}. */
    public interface RiddenClaim {
        /**
         * Claims, on the flush's connection, before any statement of the flush (so it holds nothing
         * else when it meets another claim's locks or unique entries, as a claim of its own would).
         */
        void claim(java.sql.Connection c) throws java.sql.SQLException;

        /** The transaction committed: the claimed rows are this node's. */
        void committed();

        /**
         * The transaction did not commit, or may not have.
         *
         * @param mayHaveCommitted the commit's fate is unknown: the claimed rows may be executing
         *                         under this worker and must be given back by their tokens
         */
        void abandoned(boolean mayHaveCommitted);
    }

    /** Told after each commit, before the step threads resume: pokes and await waiters. */
    public interface AfterCommit {
        /**
         * @param committed the committed transitions (stale ones excluded)
         * @param flushed   what the riders did: rows they made runnable, queues that got children
         */
        void committed(List<Transition> committed, FlushSql.Flushed flushed);
    }

    private final EngineContext ctx;
    private final EngineConfig.FlusherConfig config;
    private final FlushSql sql;
    private final ScheduledExecutorService timer;
    private final AfterCommit afterCommit;
    private final Duration deferLimit;
    private final Object lock = new Object();
    private List<Pending> pending = new ArrayList<>();
    // parents that a flush in flight decrements: their other children wait for the next flush
    // rather than meet that flush's parent lock (which the lock step would skip, deferring them)
    private final java.util.Map<Long, Integer> parentsInFlight = new java.util.HashMap<>();
    private int inFlight;
    // when each flush in flight opened (System.nanoTime), the first inFlight entries; and the recent mean flush
    private final long[] openSince;
    private long meanFlushNanos;
    private static final long MIN_OPEN_AFTER_NANOS = 1_000_000L;
    private boolean stopped;
    private ScheduledFuture<?> delayed;
    private final List<ClaimRider> riders = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * The context's timer runs the flushes; a synchronous context (no timer) makes a synchronous
     * flusher, whose {@link #submit} writes the outcome in the caller's thread before it returns
     * (the test drain: no engine thread). An outcome whose row another transaction holds locked is
     * carried from flush to flush for up to the lease TTL before it fails to its step (by then its
     * claim is lost anyway, and the reaper re-runs the step).
     *
     * @param ctx         the engine's context
     * @param config      this flusher's queues, parallelism and delay
     * @param afterCommit told after each commit
     */
    public Flusher(EngineContext ctx, EngineConfig.FlusherConfig config, AfterCommit afterCommit) {
        this.ctx = ctx;
        this.config = config;
        this.afterCommit = afterCommit;
        this.deferLimit = ctx.config().lease().ttl();
        this.sql = FlushSql.in(ctx.statements());
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
                    sleepQuietly(Math.min(100, 5L << Math.min(round, 5)));  // deferred: its row is locked elsewhere
                }
                flush();
            }
        }
        return p.done;
    }

    /** @param rider from now on, may claim inside this flusher's transactions */
    public void addRider(ClaimRider rider) {
        riders.add(rider);
    }

    /** @param rider no longer claims inside this flusher's transactions */
    public void removeRider(ClaimRider rider) {
        riders.remove(rider);
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
            deferred = write(batch);
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
            for (ClaimRider r : riders) {
                notify(r::flushEnded);
            }
        }
    }

    /** @return the claims riding this flush (asked once per flush, on its first attempt) */
    private List<RiddenClaim> rides() {
        if (riders.isEmpty()) {
            return List.of();
        }
        List<RiddenClaim> rides = new ArrayList<>(riders.size());
        for (ClaimRider r : riders) {
            try {
                RiddenClaim claim = r.ride();
                if (claim != null) {
                    rides.add(claim);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "gen-durable: a claim could not ride a flush: " + e);
            }
        }
        return rides;
    }

    private static void abandon(List<RiddenClaim> rides, boolean mayHaveCommitted) {
        for (RiddenClaim r : rides) {
            notify(() -> r.abandoned(mayHaveCommitted));
        }
    }

    /** @return the outcomes to carry to a later flush (their rows were locked by another transaction) */
    private List<Pending> write(List<Pending> batch) {
        List<Transition> rows = batch.stream().map(p -> p.row).toList();
        List<StepHistory> history = batch.stream().map(p -> p.history).filter(java.util.Objects::nonNull).toList();
        RuntimeException last = null;
        // A busy queue's next claim rides the first attempt, as its first statement: one commit for both.
        List<RiddenClaim> rides = rides();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            List<RiddenClaim> riding = rides;
            rides = List.of();
            try {
                long t0 = System.nanoTime();
                FlushSql.Flushed flushed;
                try {
                    flushed = ctx.db().inTransaction(c -> {
                        for (RiddenClaim r : riding) {
                            r.claim(c);
                        }
                        return sql.flush(c, rows, history, ctx.clock().instant());
                    });
                } catch (UnknownCommitException e) {
                    abandon(riding, true);
                    throw e;
                } catch (RuntimeException e) {
                    abandon(riding, false);
                    if (!riding.isEmpty() && io.gendurable.impl.db.SqlErrors.isUniqueViolation(e)) {
                        // A riding claim lost a K = 1 race (the unique backstop): the outcomes go
                        // again at once without it; the scheduler's own claim retries the race.
                        attempt--;
                        continue;
                    }
                    throw e;
                }
                try {
                    return committed(batch, flushed, t0);
                } finally {
                    // after the step threads resume: a gated row's admission is a statement of its own
                    for (RiddenClaim r : riding) {
                        notify(r::committed);
                    }
                }
            } catch (UnknownCommitException e) {
                // Never write these again: if the commit landed, the rows are runnable, this very
                // worker may already have claimed one again (same worker id, same attempt), and a
                // second write of the old outcome would pass the guard and undo that running claim.
                // If it did not land, the leases expire and the reaper re-runs the steps.
                ctx.metrics().flushErrors.increment();
                LOG.log(Level.WARNING, "gen-durable flush of " + rows.size() + " outcomes: " + e.getMessage()
                        + "; not writing them again (their steps re-run after lease expiry if it was not applied)");
                for (Pending p : batch) {
                    p.done.completeExceptionally(e);
                }
                return List.of();
            } catch (RuntimeException e) {
                last = e;
                ctx.metrics().flushErrors.increment();
                LOG.log(Level.WARNING, "gen-durable flush of " + rows.size() + " outcomes failed (attempt "
                        + attempt + " of " + ATTEMPTS + "): " + e);
                sleepQuietly(50L * attempt);
            }
        }
        if (batch.size() > 1) {
            // One outcome the database refuses must not sink its neighbours: write them one by one.
            LOG.log(Level.WARNING, "gen-durable: writing the " + batch.size() + " outcomes of a failed flush one by one");
            List<Pending> carried = new ArrayList<>();
            for (Pending p : batch) {
                carried.addAll(write(List.of(p)));
            }
            return carried;
        }
        for (Pending p : batch) {
            p.done.completeExceptionally(last);
        }
        return List.of();
    }

    /** After a commit: the counts, the after-commit hook, the steps' futures. @return the outcomes to carry */
    private List<Pending> committed(List<Pending> batch, FlushSql.Flushed flushed, long t0) {
        long nanos = System.nanoTime() - t0;
        List<Transition> done = new ArrayList<>(flushed.committed().size());
        List<Pending> carried = new ArrayList<>();
        // 0 committed, 1 carried, 2 stale: by the outcome's own claim, never by its row id alone (two
        // outcomes of one row, a reaped claim's and its re-claim's, can share a batch)
        byte[] fate = new byte[batch.size()];
        for (int i = 0; i < fate.length; i++) {
            Pending p = batch.get(i);
            if (flushed.committed(p.row)) {
                done.add(p.row);
            } else if (flushed.deferred().contains(p.row.id())) {
                fate[i] = 1;
                carried.add(p);
            } else {
                fate[i] = 2;
                ctx.metrics().stale.increment();
            }
        }
        // what this transaction wrote (stale outcomes included: their guard ran): an outcome carried
        // to a later flush is counted there, once, and each carry in gendurable.flush.deferred
        int written = batch.size() - carried.size();
        if (written > 0) {
            notify(() -> ctx.events().flushed(written, nanos));
            ctx.metrics().flushes.increment();
            ctx.metrics().flushedOutcomes.add(written);
        }
        try {
            afterCommit.committed(done, flushed);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: an after-commit hook failed (pokes and await waiters): " + e);
        }
        boolean continues = !flushed.continued().isEmpty();
        for (int i = 0; i < fate.length; i++) {
            Pending p = batch.get(i);
            if (fate[i] == 0) {
                Transition.Claim claim = p.row.claim();
                if (flushed.cancelled(p.row)) {
                    p.done.complete(new Written(Result.CANCELLED, p.row.claimToken()));
                    continue;
                }
                p.done.complete(continues
                        ? new Written(flushed.continuingWithSignals().contains(claim) ? Result.COMMITTED_WITH_SIGNALS
                                : Result.COMMITTED, flushed.continued().getOrDefault(claim, p.row.claimToken()))
                        : new Written(Result.COMMITTED, p.row.claimToken()));
            } else if (fate[i] == 2) {
                p.done.complete(new Written(Result.STALE, p.row.claimToken()));
            }
        }
        return defer(carried);
    }

    /**
     * Outcomes whose row (or parent) another transaction holds locked ride with a later flush,
     * until {@code deferLimit}; past it they fail to their step like a failed write.
     */
    private List<Pending> defer(List<Pending> carried) {
        if (carried.isEmpty()) {
            return carried;
        }
        long now = System.nanoTime();
        List<Pending> kept = new ArrayList<>(carried.size());
        for (Pending p : carried) {
            ctx.metrics().flushDeferred.increment();
            if (p.deferredSince == 0) {
                p.deferredSince = now;
            }
            if (now - p.deferredSince > deferLimit.toNanos()) {
                ctx.metrics().flushErrors.increment();
                p.done.completeExceptionally(new IllegalStateException("the row of instance " + p.row.id()
                        + " (or its parent) stayed locked by another transaction for more than " + deferLimit
                        + "; its outcome was not written"));
            } else {
                kept.add(p);
            }
        }
        if (!kept.isEmpty()) {
            LOG.log(Level.DEBUG, () -> "gen-durable: " + kept.size()
                    + " outcomes deferred to the next flush: their rows are locked by another transaction");
        }
        return kept;
    }

    private static void notify(Runnable observer) {
        try {
            observer.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: an engine observer failed: " + e);
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

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
