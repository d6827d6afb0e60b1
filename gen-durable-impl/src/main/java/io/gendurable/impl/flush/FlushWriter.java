package io.gendurable.impl.flush;

import io.gendurable.impl.db.SqlErrors;
import io.gendurable.impl.db.UnknownCommitException;
import io.gendurable.impl.flush.FlushListener.ClaimInFlush;
import io.gendurable.impl.runtime.EngineContext;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The writer of the group commit: one batch of outcomes in one transaction ({@link FlushSql}),
 * with the claims riding it as its first statements; retried, then written one by one; outcomes
 * whose rows another transaction holds carried to a later flush. Which outcomes go together, and
 * when, is the {@link Flusher}'s. See docs/internals.md, "Group commit".
 */
final class FlushWriter {
    private static final Logger LOG = System.getLogger("io.gendurable.flush");
    private static final int ATTEMPTS = 3;

    /** One outcome waiting for its flush; its future completes once, when its fate is known. */
    static final class Pending {
        final Transition row;
        final StepHistory history;
        final CompletableFuture<Written> done = new CompletableFuture<>();
        /** System.nanoTime() when a flush first had to defer it, or 0; written by the one flush holding it */
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

    private final EngineContext ctx;
    private final FlushSql sql;
    private final Duration deferLimit;
    // the after-commit listener first, then the queues that may claim in a flush; any thread
    private final List<FlushListener> listeners = new CopyOnWriteArrayList<>();

    FlushWriter(EngineContext ctx, FlushListener afterCommit) {
        this.ctx = ctx;
        this.sql = FlushSql.in(ctx.statements());
        this.deferLimit = ctx.config().lease().ttl();
        listeners.add(afterCommit);
    }

    void add(FlushListener l) {
        listeners.add(l);
    }

    void remove(FlushListener l) {
        listeners.remove(l);
    }

    /** A flush transaction ended (committed or not): each listener is told. */
    void ended() {
        for (FlushListener l : listeners) {
            notify(l::flushEnded);
        }
    }

    /** @return the claims riding this flush (asked once per flush, on its first attempt) */
    private List<ClaimInFlush> rides() {
        List<ClaimInFlush> rides = List.of();
        for (FlushListener l : listeners) {
            try {
                ClaimInFlush claim = l.claimInFlush();
                if (claim != null) {
                    if (rides.isEmpty()) {
                        rides = new ArrayList<>(listeners.size());
                    }
                    rides.add(claim);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "gen-durable: a claim could not ride a flush: " + e);
            }
        }
        return rides;
    }

    private static void abandon(List<ClaimInFlush> rides, boolean mayHaveCommitted) {
        for (ClaimInFlush r : rides) {
            notify(() -> r.abandoned(mayHaveCommitted));
        }
    }

    /**
     * Writes a batch: three attempts, then each outcome alone. Completes every outcome's future
     * but those it carries.
     *
     * @return the outcomes to carry to a later flush (their rows were locked by another transaction)
     */
    List<Pending> write(List<Pending> batch) {
        List<Transition> rows = batch.stream().map(p -> p.row).toList();
        List<StepHistory> history = batch.stream().map(p -> p.history).filter(Objects::nonNull).toList();
        RuntimeException last = null;
        // A busy queue's next claim rides the first attempt, as its first statement: one commit for both.
        List<ClaimInFlush> rides = rides();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            List<ClaimInFlush> riding = rides;
            rides = List.of();
            try {
                long t0 = System.nanoTime();
                FlushSql.Flushed flushed;
                try {
                    flushed = ctx.db().inTransaction(c -> {
                        for (ClaimInFlush r : riding) {
                            r.claim(c);
                        }
                        return sql.flush(c, rows, history, ctx.clock().instant());
                    });
                } catch (UnknownCommitException e) {
                    abandon(riding, true);
                    throw e;
                } catch (RuntimeException e) {
                    abandon(riding, false);
                    if (!riding.isEmpty() && SqlErrors.isUniqueViolation(e)) {
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
                    for (ClaimInFlush r : riding) {
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
        for (FlushListener l : listeners) {
            try {
                l.committed(done, flushed);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "gen-durable: an after-commit hook failed (pokes and await waiters): " + e);
            }
        }
        boolean continues = !flushed.continued().isEmpty();
        for (int i = 0; i < fate.length; i++) {
            Pending p = batch.get(i);
            if (fate[i] == 0) {
                Transition.Claim claim = p.row.claim();
                if (flushed.cancelled(p.row)) {
                    p.done.complete(new Written(Written.Result.CANCELLED, p.row.claimToken()));
                    continue;
                }
                p.done.complete(continues
                        ? new Written(flushed.continuingWithSignals().contains(claim) ? Written.Result.COMMITTED_WITH_SIGNALS
                                : Written.Result.COMMITTED, flushed.continued().getOrDefault(claim, p.row.claimToken()))
                        : new Written(Written.Result.COMMITTED, p.row.claimToken()));
            } else if (fate[i] == 2) {
                p.done.complete(new Written(Written.Result.STALE, p.row.claimToken()));
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

    static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
