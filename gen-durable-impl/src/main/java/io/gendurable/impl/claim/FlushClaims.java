package io.gendurable.impl.claim;

import io.gendurable.impl.flush.FlushListener;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.step.Claimed;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A queue's claim flag, and its claims that ride a flush: on a busy queue (its last claim filled
 * its demand) the next claim is the first statement of a flush transaction, one commit for both
 * (docs/internals.md, "The flush and its riders"). One claim statement of a queue at a time, the
 * claim loop's or one in a flush, so two never claim the same demand.
 */
final class FlushClaims implements FlushListener {
    private static final Logger LOG = System.getLogger("io.gendurable.claim");

    private final ClaimedStep.Lane lane;
    private final Claimer claimer;
    // a claim statement of this queue is under way: taken by the claim loop's thread, or by a flush's
    // thread until its transaction ends
    private final AtomicBoolean claiming = new AtomicBoolean();
    // the claim loop found a flush about to run and left its claim to it: that flush's end asks again
    private final AtomicBoolean leftToFlush = new AtomicBoolean();
    // tests only: runs right after the claim loop found a claim under way (forces the race with its end)
    volatile Runnable claimBusyHook;

    FlushClaims(ClaimedStep.Lane lane, Claimer claimer) {
        this.lane = lane;
        this.claimer = claimer;
    }

    /**
     * The claim loop is busy with rows in hand for the slots meanwhile: a flush that is about to
     * run takes this claim into its transaction. Flag first, then look: a flush that ends after the
     * look sees the flag and asks again; one that ended before it is seen as not flushing.
     *
     * @return true: left to that flush
     */
    boolean leaveToFlush() {
        leftToFlush.set(true);
        if (lane.flusher().flushing()) {
            return true;
        }
        leftToFlush.set(false);
        return false;
    }

    /**
     * Takes the claim flag for the claim loop's own claim.
     *
     * @return false: a claim riding a flush is under way (that flush's end asks again)
     */
    boolean begin() {
        if (claiming.compareAndSet(false, true)) {
            return true;
        }
        Runnable hook = claimBusyHook;
        if (hook != null) {
            hook.run();
        }
        leftToFlush.set(true);  // a claim riding a flush is under way: that flush's end asks again
        // ... unless it ended between the failed attempt and the flag, its flush's end reading the
        // flag still unset: look again, and take the request back to ask for it here
        if (!claiming.get() && leftToFlush.getAndSet(false)) {
            lane.claimSoon().run();
        }
        return false;
    }

    /** Gives the claim flag back; the flush's end ({@link #flushEnded}) runs a claim left to it meanwhile. */
    void end() {
        claiming.set(false);
    }

    /** Tests only: takes the claim flag, as a claim riding a flush does. */
    void beginForTest() {
        claiming.set(true);
    }

    @Override
    public ClaimInFlush claimInFlush() {
        Demand demand = lane.demand();
        if (!demand.backlogged() || !lane.running().getAsBoolean() || lane.pauses().isPaused(lane.queue())) {
            return null;
        }
        int asked = demand.of(lane.slots());
        if (asked < demand.min() || !claiming.compareAndSet(false, true)) {
            return null;  // too few free slots, or this queue's own claim is under way
        }
        // the claim flag is ours until committed or abandoned: no other claim takes the same demand meanwhile
        demand.adapt(lane.slots());
        asked = demand.of(lane.slots());
        if (asked < demand.min()) {
            claiming.set(false);
            return null;
        }
        return new InFlush(asked);
    }

    @Override
    public void flushEnded() {
        if (leftToFlush.getAndSet(false)) {
            lane.claimSoon().run();
        }
    }

    /** This queue's claim inside a flush transaction; holds the claim flag until the transaction's end. */
    private final class InFlush implements ClaimInFlush {
        private final int demand;
        // the flush's thread alone
        private List<Claimed> rows = List.of();

        InFlush(int demand) {
            this.demand = demand;
        }

        @Override
        public void claim(Connection c) throws SQLException {
            rows = claimer.claimIn(c, demand);
        }

        @Override
        public void committed() {
            try {
                lane.ctx().metrics().picks.increment();
                lane.ctx().metrics().picksInFlush.increment();
                lane.ctx().metrics().picked.add(rows.size());
                lane.demand().claimed(rows.size(), demand);
                List<Claimed> admitted = rows;
                try {
                    admitted = claimer.admit(rows);  // releases the denied; on failure releases them all
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "gen-durable queue " + lane.queue()
                            + ": admission of a claim that rode a flush failed: " + e);
                    admitted = List.of();
                }
                try {
                    lane.ctx().events().picked(lane.queue(), admitted.size());
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "gen-durable: an engine observer failed: " + e);
                }
                lane.arrived(admitted, demand);
            } finally {
                end();
            }
        }

        @Override
        public void abandoned(boolean mayHaveCommitted) {
            try {
                if (mayHaveCommitted && !rows.isEmpty()) {
                    // the commit may have landed: give the rows back by their tokens (a no-op if it did not)
                    Loops.guarded(LOG, "release of an unconfirmed claim of queue " + lane.queue(), lane.ctx().metrics(),
                            () -> lane.releases().release(lane.worker(), rows));
                }
            } finally {
                end();
            }
        }
    }
}
