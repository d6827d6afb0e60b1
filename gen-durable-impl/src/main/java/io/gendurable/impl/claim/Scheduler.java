package io.gendurable.impl.claim;

import io.gendurable.events.ClaimsReclaimed;
import io.gendurable.events.QueueDrained;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.flush.Flusher;
import io.gendurable.impl.lease.LeaseSql;
import io.gendurable.impl.poke.LocalPoke;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.EventKind;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.QueueActivity;
import io.gendurable.impl.step.Claimed;
import io.gendurable.impl.step.StepRunner;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * One queue's feeder on this node (docs/internals.md, "Where things are"): its lifecycle, the claim
 * loop and its poll backoff, and the start-up reclaim of a dead predecessor's claims. The parts it
 * wires each own their state: {@link Demand} (how many rows a claim asks for), {@link Slots} (the
 * buffer, the ready chains, the slots and the drainers), {@link HeldClaims} (tracking and the
 * heartbeat), {@link FlushClaims} (the claim flag and the claims riding a flush),
 * {@link ReservedSlots} (slots reserved at insert and wake-up) and {@link ClaimedStep} (one row
 * from its claim to its chain's end). Claims are coalesced (a burst of pokes is one claim); an
 * idle queue polls with a backoff doubling up to {@code max-poll-interval}; a poke resets it.
 */
public final class Scheduler implements LocalPoke.Target, QueueActivity {
    private static final Logger LOG = System.getLogger("io.gendurable.claim");

    private final EngineContext ctx;
    private final String queue;
    private final EngineConfig config;
    private final String workerPrefix;
    private final String worker;
    private final LeaseSql leaseSql;
    private final Claimer claimer;
    private final PausedQueues pauses;
    private final Flusher flusher;
    private final ScheduledExecutorService timer;

    private final Demand demand;
    private final Slots slots;
    private final HeldClaims held;
    private final ClaimedStep.Lane lane;
    private final ReservedSlots reserved;
    final FlushClaims inFlush;

    // a claim is asked for; any thread sets it, the claim loop takes it
    private final AtomicBoolean claimRequested = new AtomicBoolean();
    // the claim loop is scheduled or running on the timer: one at a time
    private final AtomicBoolean loopRunning = new AtomicBoolean();
    // written under this scheduler's monitor (start, beginStop), read by any thread
    private volatile boolean running;
    // the idle backoff: reset by any thread (wake), doubled by the claim loop
    private volatile long idleDelayMillis;
    private final Object pollLock = new Object();
    // guarded by pollLock
    private ScheduledFuture<?> nextPoll;
    // guarded by this scheduler's monitor
    private ScheduledFuture<?> heartbeat;

    /**
     * @param ctx      the engine's context
     * @param queue    the queue to feed, one of the node's configured queues (its concurrency comes from there)
     * @param runner   runs the claimed steps
     * @param flusher  writes their outcomes
     * @param services the node's limiter, paused queues and key blocking, shared by every queue
     */
    public Scheduler(EngineContext ctx, String queue, StepRunner runner, Flusher flusher, QueueServices services) {
        this.pauses = services.pauses();
        this.ctx = ctx;
        this.queue = queue;
        this.config = ctx.config();
        Integer concurrency = config.node().queues().get(queue);
        if (concurrency == null) {
            throw new IllegalArgumentException("queue '" + queue + "' is not one of this node's queues "
                    + config.node().queues().keySet());
        }
        this.workerPrefix = config.node().id() + ":" + queue + "@";
        this.worker = workerPrefix + UUID.randomUUID().toString().substring(0, 8);
        this.leaseSql = ctx.statements().of(LeaseSql.class, LeaseSql::new);
        ClaimRelease releases = new ClaimRelease(ctx, services.limiter(), services.finishCancels());
        this.claimer = new Claimer(ctx, queue, worker, releases, services.limiter(), services.keys()::claimTook);
        this.flusher = flusher;
        this.timer = ctx.requireTimer();
        this.idleDelayMillis = config.poll().interval().toMillis();
        this.demand = new Demand(config.poll(), concurrency);
        BooleanSupplier feeding = () -> running && !pauses.isPaused(queue);
        this.slots = new Slots(queue, concurrency, ctx.requireSteps(), feeding);
        this.held = new HeldClaims(ctx, queue, worker, services.limiter());
        this.lane = new ClaimedStep.Lane(ctx, queue, worker, slots, held, demand, runner, flusher, releases, pauses,
                () -> running, this::claimSoon);
        this.reserved = new ReservedSlots(lane, claimer);
        this.inFlush = new FlushClaims(lane, claimer);
    }

    @Override
    public String queue() {
        return queue;
    }

    /** @return this incarnation's worker id, stored in {@code locked_by} */
    public String worker() {
        return worker;
    }

    // QueueActivity: the queue's gauges
    @Override
    public int prefetch() {
        return demand.prefetch();
    }

    @Override
    public int inFlight() {
        return lane.inFlight();
    }

    @Override
    public int buffered() {
        return slots.buffered();
    }

    /**
     * A free slot for a row claimed by its insert or by the signal that woke it
     * ({@code gendurable.start-at-insert}): see {@link ReservedSlots#reserve}.
     *
     * @return the reserved slot, or null
     */
    public ReservedSlot reserve() {
        return reserved.reserve();
    }

    /**
     * A cancel of this row was requested (here, or seen by the heartbeat): the thread running its
     * step's code, if any, is interrupted. The row keeps its claim, key and slot until the step
     * returns; its outcome's flush then ends it cancelled.
     *
     * @param id the row
     */
    public void interrupt(long id) {
        held.interrupt(id);
    }

    /** Extends the leases of every row this scheduler holds (the heartbeat's beat; tests call it directly). */
    public void heartbeatOnce() {
        held.heartbeatOnce();
    }

    /** Releases a dead predecessor's claims, then starts feeding and heartbeating. Idempotent. */
    public synchronized void start() {
        if (running) {
            return;
        }
        Loops.guarded(LOG, "start-up reclaim of queue " + queue, ctx.metrics(), this::reclaimPredecessor);
        running = true;
        flusher.addListener(inFlush);
        long hb = config.lease().heartbeatInterval().toMillis();
        heartbeat = timer.scheduleWithFixedDelay(() -> Loops.guarded(LOG, "heartbeat of queue " + queue, ctx.metrics(),
                held::heartbeatOnce), hb, hb, TimeUnit.MILLISECONDS);
        wake();
    }

    /**
     * Stops claiming and releases buffered claims back to runnable at once. Idempotent.
     * {@link #finishStop} then waits for running steps; an engine stops every queue's claiming
     * first, so one drain deadline covers them all.
     *
     * @param deadlineNanos the drain deadline ({@link System#nanoTime()} base)
     */
    public synchronized void beginStop(long deadlineNanos) {
        if (!running) {
            return;
        }
        running = false;
        flusher.removeListener(inFlush);
        synchronized (pollLock) {
            if (nextPoll != null) {
                nextPoll.cancel(false);
            }
        }
        waitUntil(() -> !loopRunning.get(), deadlineNanos);
        int[] released = {0};
        Loops.guarded(LOG, "drain release of queue " + queue, ctx.metrics(), () -> released[0] = lane.releaseBuffered());
        if (ctx.bus().on(EventKind.QUEUE_DRAINED)) {
            ctx.bus().publish(new QueueDrained(queue, released[0], inFlight()));
        }
    }

    /**
     * Waits until the deadline for running steps to commit, then stops the heartbeat.
     *
     * @param deadlineNanos the drain deadline ({@link System#nanoTime()} base)
     * @return steps still running when the drain gave up (their leases will expire)
     */
    public synchronized int finishStop(long deadlineNanos) {
        waitUntil(() -> inFlight() == 0, deadlineNanos);
        if (heartbeat != null) {
            heartbeat.cancel(false);
            heartbeat = null;
        }
        int left = inFlight();
        if (left > 0) {
            LOG.log(Level.WARNING, "gen-durable queue " + queue + ": " + left
                    + " steps still running after the drain timeout; their leases will expire");
        }
        return left;
    }

    /**
     * Asks an idle scheduler for a claim soon; bursts coalesce into one. Resets the idle backoff. A
     * busy one (step code running) drops the poke: each finishing step asks for a claim anyway and
     * the poll stays the floor, so a stream of pokes from every node does not turn into a claim per
     * poke per node.
     */
    public void poke() {
        if (pauses.isPaused(queue)) {
            pauses.refreshSoon();  // a poke of a paused queue may be its resume: its refresh wakes this
        }
        // Only a step whose code runs counts as busy (a reserved slot runs none): a step that only
        // waits for its outcome's flush asked already when its code ended, and holds no slot.
        if (slots.taken() - reserved.count() > 0) {
            return;
        }
        wake();
    }

    /**
     * Asks for a claim soon even while busy, and resets the idle backoff: for the rare events that
     * every scheduler must act on at once whatever it runs (a queue paused or resumed, a poke
     * listener back after missing messages).
     */
    public void wake() {
        idleDelayMillis = config.poll().interval().toMillis();
        claimSoon();
    }

    private void claimSoon() {
        if (!running) {
            return;
        }
        claimRequested.set(true);
        if (loopRunning.compareAndSet(false, true)) {
            try {
                timer.execute(this::claimLoop);
            } catch (RejectedExecutionException e) {
                loopRunning.set(false);
            }
        }
    }

    private void claimLoop() {
        try {
            while (running && claimRequested.getAndSet(false)) {
                Loops.guarded(LOG, "claim of queue " + queue, ctx.metrics(), this::claimOnce);
            }
        } finally {
            loopRunning.set(false);
        }
        if (running && claimRequested.get()) {
            claimSoon();
        }
    }

    /** One round: dispatch what is buffered, claim for the free demand, dispatch again, plan the next poll. */
    void claimOnce() {
        if (pauses.isPaused(queue)) {
            // Nothing starts and the prefetched rows go back (another node may not be paused yet
            // in its view, but the claim refuses the queue for every node already). A failed release
            // still polls on: the rows it could not give back lapse to the reaper.
            try {
                lane.releaseBuffered();
            } finally {
                schedulePoll(config.poll().interval().toMillis());
            }
            return;
        }
        slots.dispatch();
        int asked = demand.of(slots);
        if (asked < demand.min()) {
            return;  // a finishing step asks again
        }
        if (demand.backlogged() && !slots.bufferEmpty() && inFlush.leaveToFlush()) {
            return;
        }
        demand.adapt(slots);
        if (!inFlush.begin()) {
            return;
        }
        List<Claimed> rows;
        try {
            asked = demand.of(slots);
            rows = asked < demand.min() ? List.of() : claimer.claim(asked);
        } catch (RuntimeException e) {
            schedulePoll(backoff());
            throw e;
        } finally {
            inFlush.end();
        }
        if (asked < demand.min()) {
            return;  // a claim in a flush took the demand meanwhile
        }
        ctx.metrics().picks.increment();
        ctx.metrics().picked.add(rows.size());
        if (rows.size() < asked) {
            ctx.metrics().shortPicks.increment();
            if (rows.isEmpty()) {
                ctx.metrics().emptyPicks.increment();
            }
        }
        try {
            ctx.events().picked(queue, rows.size());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: an engine observer failed: " + e);
        }
        demand.claimed(rows.size(), asked);
        if (!lane.arrived(rows, asked)) {
            return;
        }
        if (rows.size() < asked) {
            schedulePoll(rows.isEmpty() ? backoff() : config.poll().interval().toMillis());
        } else {
            idleDelayMillis = config.poll().interval().toMillis();
            schedulePoll(idleDelayMillis);
        }
    }

    /** Tests only: one claim and admission of up to {@code demand} rows, as the loop runs it; nothing is buffered or run. */
    List<Claimed> claimForTest(int demand) {
        return claimer.claim(demand);
    }

    /** Tests only: gives claimed rows back, as a drain or a paused queue does (their gate slots too). */
    int releaseForTest(List<Claimed> rows) {
        return lane.releases().release(worker, rows);
    }

    private long backoff() {
        long d = idleDelayMillis;
        idleDelayMillis = Math.min(d * 2, config.poll().maxInterval().toMillis());
        return d;
    }

    private void schedulePoll(long delayMillis) {
        synchronized (pollLock) {
            if (nextPoll != null) {
                nextPoll.cancel(false);
            }
            if (running) {
                nextPoll = timer.schedule(this::claimSoon, delayMillis, TimeUnit.MILLISECONDS);
            }
        }
    }

    private void reclaimPredecessor() {
        // Stale: not renewed for two heartbeats. A live twin with our node id renews sooner.
        Duration staleness = config.lease().ttl().minus(config.lease().heartbeatInterval().multipliedBy(2));
        int n = ctx.db().inTransaction(c -> leaseSql.reclaimPredecessor(c, workerPrefix, worker,
                ctx.clock().instant().plus(staleness.isNegative() ? Duration.ZERO : staleness), ctx.clock().instant()));
        if (n > 0) {
            ctx.metrics().reclaimed(queue, n);
            if (ctx.bus().on(EventKind.CLAIMS_RECLAIMED)) {
                ctx.bus().publish(new ClaimsReclaimed(queue, n));
            }
            LOG.log(Level.INFO, "gen-durable queue " + queue + ": released " + n + " claims of a dead predecessor");
        }
    }

    private static void waitUntil(BooleanSupplier condition, long deadline) {
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
