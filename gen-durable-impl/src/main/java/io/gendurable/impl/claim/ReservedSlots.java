package io.gendurable.impl.claim;

import io.gendurable.impl.insert.InsertSql;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.step.ClaimedRow;
import io.gendurable.impl.step.Claimed;

import java.lang.System.Logger;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A queue's slots reserved for rows claimed by their insert or by the signal that woke them
 * ({@code gendurable.start-at-insert}; docs/internals.md, "Start at insert and at wake-up").
 */
final class ReservedSlots {
    private static final Logger LOG = System.getLogger("io.gendurable.claim");

    private final ClaimedStep.Lane lane;
    private final Claimer claimer;
    // reservations not yet started or given back: they count in the taken slots (the concurrency
    // holds) but run no code, so a poke is not dropped for them; any thread
    private final AtomicInteger reservations = new AtomicInteger();

    ReservedSlots(ClaimedStep.Lane lane, Claimer claimer) {
        this.lane = lane;
        this.claimer = claimer;
    }

    /** @return reserved slots not yet started or given back */
    int count() {
        return reservations.get();
    }

    /**
     * A free slot reserved when the queue runs, is not paused, holds no row waiting for a slot
     * (buffered, or a chain resumed) and its last claim did not fill its demand (no backlog known
     * here, so the row does not pass rows this node has claimed or would claim next). The slot
     * counts as running from now: the queue never runs more than its concurrency.
     *
     * @return the reserved slot, or null
     */
    ReservedSlot reserve() {
        Slots slots = lane.slots();
        if (!lane.running().getAsBoolean() || lane.demand().backlogged() || !slots.bufferEmpty() || !slots.readyEmpty()
                || slots.awaitFull() || lane.pauses().isPaused(lane.queue())) {
            return null;
        }
        if (!slots.tryTake()) {
            return null;
        }
        // (a claim under way may have read its demand before this slot was taken: it then buffers a
        // row for this slot too, one beyond the prefetch until a slot frees; the concurrency holds,
        // and refusing the reservation would cost start-at-insert its latency whenever a claim is in flight)
        reservations.incrementAndGet();
        return new Slot();
    }

    /** A slot taken by {@link #reserve}: it runs the row claimed for it, or is given back. */
    private final class Slot implements ReservedSlot {
        // the row a signal's transaction claimed for this slot, until that transaction ends
        private Claimed woken;
        // still counted in reservations (until it starts a row or is given back); the inserting or
        // signalling thread's alone
        private boolean reserved = true;

        /** The reservation ends (its row starts, or it is given back): a poke counts it as running no more. */
        private void settle() {
            if (reserved) {
                reserved = false;
                reservations.decrementAndGet();
            }
        }

        @Override
        public String worker() {
            return lane.worker();
        }

        @Override
        public void claimed(InsertSql.Row r, long id, long claimToken, int attempt, Instant insertedAt,
                            Instant leaseUntil) {
            start(inserted(r, id, claimToken, attempt, insertedAt, leaseUntil));
        }

        @Override
        public void unconfirmed(InsertSql.Row r, long id, long claimToken, int attempt, Instant insertedAt) {
            Claimed p = inserted(r, id, claimToken, attempt, insertedAt, null);
            try {
                // the commit may have landed: give the row back by its token (a no-op if it did not)
                Loops.guarded(LOG, "release of an unconfirmed insert's claim in queue " + lane.queue(), lane.ctx().metrics(),
                        () -> lane.releases().release(lane.worker(), List.of(p)));
            } finally {
                release();
            }
        }

        private Claimed inserted(InsertSql.Row r, long id, long claimToken, int attempt, Instant insertedAt,
                                Instant leaseUntil) {
            ClaimedRow row = ClaimedRow.startedAtInsert(id, r.fsm(), r.fsmVersion(), r.step(), r.stateJson(), attempt,
                    lane.queue(), r.priority(), r.eligibleAt(), insertedAt, r.parentId(), r.weight(), claimToken,
                    r.traceparent(), r.tracestate(), leaseUntil, r.stepTimeoutMillis());
            return new Claimed(row, List.of(), List.of(), null);
        }

        @Override
        public boolean claimIn(Connection c, long id) throws SQLException {
            woken = claimer.claimWokenIn(c, id);
            return woken != null;
        }

        @Override
        public void committed() {
            if (woken != null) {
                start(woken);
            } else {
                release();
            }
        }

        @Override
        public void abandoned(boolean mayHaveCommitted) {
            if (woken != null && mayHaveCommitted) {
                Claimed p = woken;
                Loops.guarded(LOG, "release of an unconfirmed wake-up claim of queue " + lane.queue(), lane.ctx().metrics(),
                        () -> lane.releases().release(lane.worker(), List.of(p)));
            }
            release();
        }

        @Override
        public void release() {
            settle();
            lane.slots().giveBack();
            // pokes may have been dropped while this slot was held (a busy queue drops them): look now
            lane.claimSoon().run();
            lane.slots().dispatch();
        }

        /** The row is this node's (its claim committed): run it in this slot on the step pool. */
        private void start(Claimed p) {
            settle();
            lane.ctx().metrics().startedAtInsert.increment();  // not a claim of the queue's: no claim event
            ClaimedStep run = lane.track(p);
            // this thread is the caller's: the step runs on the step pool
            if (lane.running().getAsBoolean() && lane.slots().runOnPool(run)) {
                return;
            }
            // stopping (or refused): the row goes back to runnable by its token, as buffered rows do
            Loops.guarded(LOG, "release of a row started at its insert or wake-up in queue " + lane.queue(),
                    lane.ctx().metrics(), () -> lane.releases().release(lane.worker(), List.of(p)));
            lane.held().forget(run.claim);
            release();
        }
    }
}
