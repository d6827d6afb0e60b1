package io.gendurable.impl.claim;

import io.gendurable.events.QueueSaturation;
import io.gendurable.events.RowsClaimed;
import io.gendurable.impl.claim.HeldClaims.Claim;
import io.gendurable.impl.claim.HeldClaims.Lease;
import io.gendurable.impl.flush.Flusher;
import io.gendurable.impl.flush.Written;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.EngineEventBus;
import io.gendurable.impl.runtime.EventKind;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.step.ClaimedRow;
import io.gendurable.impl.step.Claimed;
import io.gendurable.impl.step.StepRunner;
import io.gendurable.impl.step.StepSlot;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;

/**
 * One claimed row in one of its queue's slots, from its claim to the end of its chain: the
 * {@link StepSlot} that {@link StepRunner} reports to (docs/internals.md, "Group commit"). Its
 * code runs in a slot; once the chain's code is done its outcome waits for its flush outside the
 * slot ({@link #codeDone}), and its end gives back the claim and the wait ({@link #ended}).
 */
final class ClaimedStep implements Slots.Entry, StepSlot {
    private static final Logger LOG = System.getLogger("io.gendurable.claim");

    /**
     * What the steps of one queue share: its parts, and the rows a claim brings in ({@link #arrived}).
     *
     * @param running   the scheduler runs (not stopping)
     * @param claimSoon asks the scheduler's claim loop for a claim soon
     */
    record Lane(EngineContext ctx, String queue, String worker, Slots slots, HeldClaims held, Demand demand,
                StepRunner runner, Flusher flusher, ClaimRelease releases, PausedQueues pauses,
                BooleanSupplier running, Runnable claimSoon) {

        /** Registers the claim for the heartbeat; @return the row's step, to buffer or run */
        ClaimedStep track(Claimed p) {
            return new ClaimedStep(this, p, held.track(p.row()));
        }

        /**
         * @return whether a step's next may run inline in this worker: the queue runs and is not paused
         * (a paused queue's {@code next} waits in it, as operations.md promises: pause is the brake)
         */
        boolean mayChain() {
            return running.getAsBoolean() && !pauses.isPaused(queue);
        }

        /** @return steps running now and steps waiting for their outcome's flush */
        int inFlight() {
            return slots.taken() + slots.awaitingFlush();
        }

        /**
         * A claim (the loop's, or one in a flush) brought these rows: they are buffered and
         * dispatched, or given back when the scheduler is stopping.
         *
         * @return false: stopping, the rows went back
         */
        boolean arrived(List<Claimed> rows, int demand) {
            for (Claimed p : rows) {
                slots.buffer(track(p));
            }
            claimEvents(rows.size(), demand);
            if (!running.getAsBoolean()) {
                Loops.guarded(LOG, "drain release of queue " + queue, ctx.metrics(), this::releaseBuffered);
                return false;
            }
            slots.dispatch();
            return true;
        }

        /** The claim's events, when listened to: what it kept of its demand, and the queue's occupancy right after. */
        private void claimEvents(int count, int demand) {
            EngineEventBus bus = ctx.bus();
            if (bus.on(EventKind.ROWS_CLAIMED)) {
                bus.publish(new RowsClaimed(queue, ctx.config().node().id(), count, demand));
            }
            if (bus.on(EventKind.QUEUE_SATURATION)) {
                bus.publish(new QueueSaturation(queue, inFlight(), slots.buffered(), slots.concurrency(),
                        this.demand.prefetch()));
            }
        }

        /** @return how many buffered claims went back (those still this node's) */
        int releaseBuffered() {
            List<Claimed> rows = new ArrayList<>();
            List<Claim> claims = new ArrayList<>();
            for (Slots.Entry e; (e = slots.unbuffer()) != null; ) {
                ClaimedStep r = (ClaimedStep) e;
                rows.add(r.claimed);
                claims.add(r.claim);
            }
            if (rows.isEmpty()) {
                return 0;
            }
            // Forgotten before the release, whatever it does: a claim this node no longer means to run
            // is never heartbeated again, so if the release fails the reaper takes it at lease expiry.
            claims.forEach(held::forget);
            // Only the claims still ours go back, and only their slots are credited: a row reaped
            // while it sat in the buffer may be running elsewhere, holding a slot of the gate.
            int n = releases.release(worker, rows);
            ctx.metrics().released(queue, n);
            LOG.log(Level.INFO, "gen-durable queue " + queue + ": released " + n + " of " + rows.size()
                    + " buffered claims on stop");
            return n;
        }
    }

    private final Lane lane;
    final Claimed claimed;
    final Claim claim;
    // set by codeDone in the step's thread, read by ended in the thread that completes its flush
    // (ordered by the flusher's lock and the future's completion): the step holds no slot, it waits
    private volatile boolean waiting;
    /** when the row entered the buffer (System.nanoTime) */
    private final long bufferedAt = System.nanoTime();

    private ClaimedStep(Lane lane, Claimed claimed, Claim claim) {
        this.lane = lane;
        this.claimed = claimed;
        this.claim = claim;
    }

    /** Runs the step in the slot taken for it; the row stays claimed and heartbeated until its outcome's flush ends. */
    @Override
    public void run() {
        claim.enter();
        try {
            // this thread does not wait for that flush (ended runs when it does)
            lane.runner.runThen(claimed, lane.worker, lane.flusher, this);
        } catch (RuntimeException | Error e) {
            ended(null, e);
            if (e instanceof Error error) {
                throw error;
            }
        } finally {
            claim.leave();
        }
    }

    /** A drainer took a slot for this buffered row. */
    @Override
    public void started() {
        lane.demand.started(bufferedAt);
    }

    @Override
    public boolean mayChain() {
        return lane.mayChain();
    }

    @Override
    public boolean live(ClaimedRow row) {
        try {
            return lane.held.leaseLive(claim, row);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: the lease of instance " + row.id()
                    + " could not be confirmed before its step; the step is left to the reaper: " + e);
            return false;
        }
    }

    @Override
    public void moved(long id, long from, long to, Instant leaseUntil) {
        claim.lease.set(new Lease(to, leaseUntil));
    }

    /** A timed-out step ignored its interrupt past the grace: its claim is heartbeated no more (its slot stays taken). */
    @Override
    public void abandon(ClaimedRow row) {
        lane.held.forget(claim);
    }

    /**
     * The step's code is done (for now: an inline continue resumes it); its outcome waits for a
     * flush: the slot runs another step meanwhile (this thread's drainer takes the next buffered
     * row itself). The claim loop is woken only when a claim is due (below that it does nothing).
     */
    @Override
    public void codeDone() {
        claim.leave();
        lane.slots.codeDone();
        waiting = true;
        if (lane.demand.of(lane.slots) >= lane.demand.min()) {
            lane.claimSoon.run();
        }
    }

    /** Its inline continue is durable: the next step waits for a slot, before any buffered row. */
    @Override
    public void resume(Runnable next) {
        lane.slots.resume(new Resumed(this, next));
    }

    /** Its chain's last outcome is durable, stale, or could not be written: its claim and slot (or wait) end. */
    @Override
    public void ended(Written.Result result, Throwable failure) {
        long id = claimed.row().id();
        try {
            if (failure != null) {
                lane.ctx.metrics().loopErrors.increment();
                LOG.log(Level.WARNING, "gen-durable: the outcome of instance " + id
                        + " could not be written; its lease will expire and the step will run again: "
                        + (failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure));
            } else if (result == Written.Result.STALE) {
                LOG.log(Level.DEBUG, "gen-durable: stale outcome for instance " + id + " dropped");
            }
        } finally {
            lane.held.forget(claim);
            lane.slots.ended(waiting);
            lane.claimSoon.run();
        }
    }

    /** A chain's next step, its inline continue durable: runs on a drainer that took a slot for it. */
    private record Resumed(ClaimedStep chain, Runnable next) implements Slots.Entry {
        /** Its wait for the inline continue's commit is over: it counts as running again. */
        @Override
        public void started() {
            chain.lane.slots.resumed();
            chain.waiting = false;
        }

        @Override
        public void run() {
            chain.claim.enter();
            try {
                next.run();
            } finally {
                chain.claim.leave();
            }
        }
    }
}
