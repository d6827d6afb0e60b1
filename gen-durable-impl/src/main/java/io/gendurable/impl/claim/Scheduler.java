package io.gendurable.impl.claim;

import io.gendurable.events.ClaimsReclaimed;
import io.gendurable.events.QueueDrained;
import io.gendurable.events.QueueSaturation;
import io.gendurable.events.RowsClaimed;
import io.gendurable.impl.runtime.EngineEventBus;
import io.gendurable.impl.runtime.EventKind;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.flush.Flusher;
import io.gendurable.impl.insert.InsertSql;
import io.gendurable.impl.insert.InsertStarts;
import io.gendurable.impl.lease.LeaseSql;
import io.gendurable.impl.poke.LocalPoke;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.QueueActivity;
import io.gendurable.impl.signals.WakeStarts;
import io.gendurable.impl.step.ClaimedRow;
import io.gendurable.impl.step.Picked;
import io.gendurable.impl.step.StepRunner;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One queue's feeder on this node. Demand is free slots plus prefetch; a fill runs one claim
 * statement for the whole demand, buffers the rows and dispatches them to the step pool up to
 * the queue's concurrency. Fills are coalesced (a burst of pokes is one pick); an idle queue
 * polls with a backoff doubling up to {@code max-poll-interval}; a poke resets it. Claimed rows
 * (buffered and running, until their outcome is durable) are kept alive by the heartbeat.
 * A slot counts a step while its code runs: once the last step of a chain has handed its outcome
 * to the flusher, the slot runs another step while the outcome waits for its flush (at most
 * {@link #awaitCap} such outcomes), so a node is not capped at concurrency ÷ commit time. No
 * thread waits for a terminal outcome's commit: the flush's completion ends the step
 * ({@link StepRunner#runThen}). A step thread whose step's code has ended takes the next
 * buffered row itself while there is one and a free slot ({@link #drain}), so a stream of short
 * steps is not one thread hand-off (a parked pool thread woken) per step; the step pool is given
 * a new task only for rows that no such thread will take.
 */
public final class Scheduler implements LocalPoke.Target, QueueActivity, Flusher.ClaimRider {
    private static final Logger LOG = System.getLogger("io.gendurable.claim");
    // a row that waited this long in the buffer halves an auto prefetch (slow steps: adaptPrefetch)
    private static final long BUFFER_WAIT_NANOS = 100_000_000L;

    private final EngineContext ctx;
    private final String queue;
    private final int concurrency;
    // rows buffered beyond the running slots: fixed when configured; auto (-1, the default) adapts
    // between the concurrency and prefetchCeiling (see adaptPrefetch)
    private volatile int prefetch;
    private final boolean adaptivePrefetch;
    private final int prefetchCeiling;
    private final int configuredMinDemand;
    private final EngineConfig config;
    private final String workerPrefix;
    private final String worker;
    private final LeaseSql leaseSql;
    private final ClaimRelease releases;
    private final Picker picker;
    private final Limiter limiter;
    private final PausedQueues pauses;
    private final StepRunner runner;
    private final Flusher flusher;
    private final ScheduledExecutorService timer;
    private final ExecutorService steps;

    private final ConcurrentLinkedQueue<Run> buffer = new ConcurrentLinkedQueue<>();
    // chains whose inline continue is durable, waiting for a slot to run their next step: taken
    // before the buffer, and even while stopping or paused (their rows are claimed and running)
    private final ConcurrentLinkedQueue<Resumed> ready = new ConcurrentLinkedQueue<>();
    // id → the fencing token of this worker's latest claim of it (a reaped row re-claimed by this
    // same worker maps to the new claim; the old one's outcome will be stale anyway)
    private final Map<Long, Claim> claimed = new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    // drainers on the step pool that are looking for a buffered row (not in step code): see dispatch
    private final AtomicInteger searching = new AtomicInteger();
    private final Runnable drainer = this::drain;
    // steps whose code is done and whose outcome waits for its flush: their slot runs another step
    // meanwhile; at most awaitCap of them, so the claimed rows stay bounded
    private final AtomicInteger awaitingFlush = new AtomicInteger();
    private final int awaitCap;
    private final AtomicBoolean fillRequested = new AtomicBoolean();
    private final AtomicBoolean fillRunning = new AtomicBoolean();
    private final Object pollLock = new Object();
    private volatile boolean running;
    // the last claim filled its whole demand: the queue has more runnable rows, so the next claim
    // rides a flush transaction (one commit for both) rather than paying a commit of its own
    private volatile boolean backlogged;
    // a fill found a flush about to run and left its claim to it: that flush's end asks again
    private final AtomicBoolean leftToFlush = new AtomicBoolean();
    // a claim statement of this queue is under way (a fill's, or one riding a flush): one at a time,
    // so two never claim the same demand
    private final AtomicBoolean claiming = new AtomicBoolean();
    // tests only: runs right after a fill found a claim under way (forces the race with its end)
    volatile Runnable claimBusyHook;
    private volatile long idleDelayMillis;
    private ScheduledFuture<?> nextPoll;
    private ScheduledFuture<?> heartbeat;

    /**
     * One claim this scheduler holds: the row's id boxed once (the map's key), and its lease: the
     * fencing token the heartbeat presents (moved by inline continues) with the lease last written
     * for that token. Removed by identity, so a re-claim of the same row by this worker (a new
     * holder) is never removed by the old one's end. The lease is replaced whole: by the step
     * thread on an inline continue, by the heartbeat (only if the token it presented is still the
     * current one) and by the start check's renewal.
     */
    private static final class Claim {
        final Long id;
        final java.util.concurrent.atomic.AtomicReference<Lease> lease;

        Claim(Long id, long token, java.time.Instant until) {
            this.id = id;
            this.lease = new java.util.concurrent.atomic.AtomicReference<>(new Lease(token, until));
        }

        long token() {
            return lease.get().token();
        }

        // the thread running this claim's step code, while it does; guarded by this claim's monitor
        private Thread thread;
        private boolean interrupted;

        /** The calling thread starts running this claim's step code. */
        synchronized void enter() {
            thread = Thread.currentThread();
        }

        /** The calling thread's step code for this claim is done: an interrupt meant for it is not left behind. */
        synchronized void leave() {
            if (thread == Thread.currentThread()) {
                thread = null;
                if (interrupted) {
                    interrupted = false;
                    Thread.interrupted();
                }
            }
        }

        /** A cancel was requested: interrupts the step's code if it runs now. */
        synchronized void interrupt() {
            if (thread != null) {
                interrupted = true;
                thread.interrupt();
            }
        }
    }

    /** A claim's fencing token and the lease written for it (engine clock). */
    private record Lease(long token, java.time.Instant until) {
    }

    // reservations for rows claimed by their insert or wake-up, not yet started or given back: they
    // count in inFlight (the concurrency holds) but run no code, so a poke is not dropped for them
    private final AtomicInteger reservations = new AtomicInteger();

    /**
     * @param ctx      the engine's context
     * @param queue    the queue to feed, one of the node's configured queues (its concurrency comes from there)
     * @param runner   runs the claimed steps
     * @param flusher  writes their outcomes
     * @param services the node's limiter, paused queues and key blocking, shared by every queue
     */
    public Scheduler(EngineContext ctx, String queue, StepRunner runner, Flusher flusher, QueueServices services) {
        Limiter limiter = services.limiter();
        this.pauses = services.pauses();
        this.ctx = ctx;
        this.queue = queue;
        this.config = ctx.config();
        Integer slots = config.node().queues().get(queue);
        if (slots == null) {
            throw new IllegalArgumentException("queue '" + queue + "' is not one of this node's queues "
                    + config.node().queues().keySet());
        }
        this.concurrency = slots;
        this.awaitCap = awaitCap(slots);
        this.prefetch = config.poll().prefetchFor(slots);
        this.adaptivePrefetch = config.poll().prefetch() == ConfigKeys.AUTO;
        this.prefetchCeiling = autoPrefetchCeiling(slots);
        this.configuredMinDemand = config.poll().minDemand();
        this.workerPrefix = config.node().id() + ":" + queue + "@";
        this.worker = workerPrefix + UUID.randomUUID().toString().substring(0, 8);
        this.leaseSql = ctx.statements().of(LeaseSql.class, LeaseSql::new);
        this.releases = new ClaimRelease(ctx, limiter, services.finishCancels());
        this.picker = new Picker(ctx, queue, worker, releases, limiter, services.keys()::claimTook);
        this.limiter = limiter;
        this.runner = runner;
        this.flusher = flusher;
        this.timer = ctx.requireTimer();
        this.steps = ctx.requireSteps();
        this.idleDelayMillis = config.poll().interval().toMillis();
    }

    /**
     * How many steps of a queue may wait for their outcome's flush while their slots run other
     * steps (terminal outcomes, and inline continues whose chain goes on once theirs commits):
     * 1,024, or the concurrency if it is larger. An inline chain waits for a commit at every step,
     * so this bounds the chains in flight, and a flush takes everything waiting, so it bounds the
     * batch: a queue completes at most this many steps per flush time, whatever its concurrency.
     * A waiting outcome holds no thread and no slot, only its row's claim and a few hundred bytes.
     *
     * @param concurrency the queue's concurrency
     * @return the bound
     */
    public static int awaitCap(int concurrency) {
        return Math.max(concurrency, 1024);
    }

    /**
     * The most rows an auto prefetch grows to: 256, or the concurrency if it is larger. It starts at
     * the concurrency and grows only while short steps empty the buffer before the next claim, and it
     * halves once a row waits in the buffer over 100 ms, so slow steps keep it small whatever this
     * ceiling. Buffered rows are rows other nodes cannot take, so it stays below the waiters' bound.
     *
     * @param concurrency the queue's concurrency
     * @return the ceiling
     */
    public static int autoPrefetchCeiling(int concurrency) {
        return Math.max(concurrency, 256);
    }

    /** @return the rows this queue buffers beyond its running slots now (auto prefetch adapts it) */
    @Override
    public int prefetch() {
        return prefetch;
    }

    /** @return free slots plus prefetch, less what is running and buffered: the rows a claim asks for now */
    private int demand() {
        return concurrency + prefetch - inFlight.get() - buffer.size();
    }

    /** @return the fewest rows worth a claim: as configured, or (auto) a quarter of the concurrency plus the prefetch now */
    private int minDemand() {
        return configuredMinDemand == ConfigKeys.AUTO
                ? Math.max(1, (concurrency + prefetch) / 4) : configuredMinDemand;
    }

    /**
     * Auto prefetch grows on a busy queue whose slots starve: a claim finds the buffer empty and
     * slots free while the last claim filled its whole demand (short steps drain the buffer before
     * the next claim's round trip ends), so the next claims ask for twice as many rows, up to
     * {@link #autoPrefetchCeiling}: fewer, larger claims and flushes. It halves (down to the
     * concurrency) when a row waited in the buffer longer than {@link #BUFFER_WAIT_NANOS} (slow
     * steps: rows held here are rows another node could run).
     */
    private void adaptPrefetch() {
        int p = prefetch;
        if (adaptivePrefetch && backlogged && p < prefetchCeiling && buffer.isEmpty() && inFlight.get() < concurrency) {
            prefetch = Math.min(prefetchCeiling, 2 * p);
        }
    }

    /** @return the queue this scheduler feeds */
    @Override
    public String queue() {
        return queue;
    }

    /** @return this incarnation's worker id, stored in {@code locked_by} */
    public String worker() {
        return worker;
    }

    /** @return steps running now */
    @Override
    public int inFlight() {
        return inFlight.get() + awaitingFlush.get();
    }

    /** @return claimed rows waiting for a free slot */
    @Override
    public int buffered() {
        return buffer.size();
    }

    /**
     * A slot reserved for a row claimed outside the queue's own claim: by its insert
     * ({@link InsertStarts}) or in the transaction of the signal that woke it ({@link WakeStarts}).
     */
    public interface Reserved extends InsertStarts.Slot, WakeStarts.Slot {
    }

    /**
     * A free slot reserved for a row claimed by its insert or by the signal that woke it
     * ({@code gendurable.start-at-insert}), when the queue runs, is not paused, holds no row waiting
     * for a slot (buffered, or a chain resumed) and its last claim did not fill its demand (no
     * backlog known here, so the row does not pass rows this node has claimed or would claim next).
     * The slot counts as running from now: the queue never runs more than its concurrency.
     *
     * @return the reserved slot, or null
     */
    public Reserved reserve() {
        if (!running || backlogged || !buffer.isEmpty() || !ready.isEmpty() || awaitingFlush.get() >= awaitCap
                || pauses.isPaused(queue)) {
            return null;
        }
        while (true) {
            int n = inFlight.get();
            if (n >= concurrency) {
                return null;
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                // (a claim under way may have read its demand before this slot was taken: it then
                // buffers a row for this slot too, one beyond the prefetch until a slot frees; the
                // concurrency holds, and refusing the reservation would cost start-at-insert its
                // latency whenever a claim is in flight)
                reservations.incrementAndGet();
                return new ReservedSlot();
            }
        }
    }

    /** A slot taken by {@link #reserve}: it runs the row claimed for it, or is given back. */
    private final class ReservedSlot implements Reserved {
        // the row a signal's transaction claimed for this slot, until that transaction ends
        private Picked woken;
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
            return worker;
        }

        @Override
        public void claimed(InsertSql.Row r, long id, long claimToken, int attempt, java.time.Instant insertedAt,
                            java.time.Instant leaseUntil) {
            start(inserted(r, id, claimToken, attempt, insertedAt, leaseUntil));
        }

        @Override
        public void unconfirmed(InsertSql.Row r, long id, long claimToken, int attempt, java.time.Instant insertedAt) {
            Picked p = inserted(r, id, claimToken, attempt, insertedAt, null);
            try {
                // the commit may have landed: give the row back by its token (a no-op if it did not)
                Loops.guarded(LOG, "release of an unconfirmed insert's claim in queue " + queue, ctx.metrics(),
                        () -> releases.release(worker, List.of(p)));
            } finally {
                release();
            }
        }

        private Picked inserted(InsertSql.Row r, long id, long claimToken, int attempt, java.time.Instant insertedAt,
                                java.time.Instant leaseUntil) {
            ClaimedRow row = new ClaimedRow(id, r.fsm(), r.fsmVersion(), r.step(), r.stateJson(), attempt, queue,
                    r.priority(), r.eligibleAt(), insertedAt, null, null, List.of(), false, r.parentId(), false,
                    null, r.weight(), false, null, claimToken, r.traceparent(), r.tracestate(), leaseUntil,
                    r.stepTimeoutMillis());
            return new Picked(row, List.of(), List.of(), null);
        }

        @Override
        public boolean claimIn(java.sql.Connection c, long id) throws java.sql.SQLException {
            woken = picker.claimWokenIn(c, id);
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
                Picked p = woken;
                Loops.guarded(LOG, "release of an unconfirmed wake-up claim of queue " + queue, ctx.metrics(),
                        () -> releases.release(worker, List.of(p)));
            }
            release();
        }

        @Override
        public void release() {
            settle();
            inFlight.decrementAndGet();
            // pokes may have been dropped while this slot was held (a busy queue drops them): look now
            requestFill();
            dispatch();
        }

        /** The row is this node's (its claim committed): run it in this slot on the step pool. */
        private void start(Picked p) {
            settle();
            ctx.metrics().startedAtInsert.increment();  // not a pick: no picked event
            Run run = track(p);
            if (running) {
                try {
                    // this thread is the caller's: the step runs on the step pool, whose thread then
                    // drains the buffer as any drainer does (counted in searching once its step is done)
                    steps.execute(() -> {
                        try {
                            run.run();
                        } catch (RuntimeException | Error e) {
                            drainerLost(e);
                            throw e;
                        }
                        searching.incrementAndGet();
                        drain();
                    });
                    return;
                } catch (RuntimeException e) {
                    // refused, or any other failure to hand it over: the slot and the row must come back
                    LOG.log(Level.WARNING, "gen-durable queue " + queue + ": the step executor refused work: " + e);
                }
            }
            // stopping (or refused): the row goes back to runnable by its token, as buffered rows do
            Loops.guarded(LOG, "release of a row started at its insert or wake-up in queue " + queue, ctx.metrics(),
                    () -> releases.release(worker, List.of(p)));
            claimed.remove(run.claim.id, run.claim);
            release();
        }
    }

    /** Releases a dead predecessor's claims, then starts feeding and heartbeating. Idempotent. */
    public synchronized void start() {
        if (running) {
            return;
        }
        Loops.guarded(LOG, "start-up reclaim of queue " + queue, ctx.metrics(), this::reclaimPredecessor);
        running = true;
        flusher.addRider(this);
        long hb = config.lease().heartbeatInterval().toMillis();
        heartbeat = timer.scheduleWithFixedDelay(() -> Loops.guarded(LOG, "heartbeat of queue " + queue, ctx.metrics(),
                this::heartbeatOnce), hb, hb, TimeUnit.MILLISECONDS);
        wake();
    }

    /**
     * Stops picking and releases buffered claims back to runnable at once. Idempotent.
     * {@link #finishStop} then waits for running steps; an engine stops every queue's picking
     * first, so one drain deadline covers them all.
     *
     * @param deadlineNanos the drain deadline ({@link System#nanoTime()} base)
     */
    public synchronized void beginStop(long deadlineNanos) {
        if (!running) {
            return;
        }
        running = false;
        flusher.removeRider(this);
        synchronized (pollLock) {
            if (nextPoll != null) {
                nextPoll.cancel(false);
            }
        }
        waitUntil(() -> !fillRunning.get(), deadlineNanos);
        int[] released = {0};
        Loops.guarded(LOG, "drain release of queue " + queue, ctx.metrics(), () -> released[0] = releaseBuffered());
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
     * Asks an idle scheduler for a fill soon; bursts coalesce into one pick. Resets the idle
     * backoff. A busy one (step code running) drops the poke: each finishing step asks for a fill
     * anyway (completion refill) and the poll stays the floor, so a stream of pokes from every
     * node does not turn into a pick per poke per node.
     */
    public void poke() {
        if (pauses.isPaused(queue)) {
            pauses.refreshSoon();  // a poke of a paused queue may be its resume: its refresh wakes this
        }
        // Only a step whose code runs counts as busy: it asks for a fill when its code ends. A step
        // that only waits for its outcome's flush asked already (when its code ended) and holds no
        // slot, so a poke then claims at once instead of waiting out that flush's commit (which on
        // an idle engine delayed every new row by up to one commit).
        if (inFlight.get() - reservations.get() > 0) {
            return;
        }
        wake();
    }

    /**
     * Asks for a fill soon even while busy, and resets the idle backoff: for the rare events that
     * every scheduler must act on at once whatever it runs (a queue paused or resumed, a poke
     * listener back after missing messages).
     */
    public void wake() {
        idleDelayMillis = config.poll().interval().toMillis();
        requestFill();
    }

    private void requestFill() {
        if (!running) {
            return;
        }
        fillRequested.set(true);
        if (fillRunning.compareAndSet(false, true)) {
            try {
                timer.execute(this::fillLoop);
            } catch (RejectedExecutionException e) {
                fillRunning.set(false);
            }
        }
    }

    private void fillLoop() {
        try {
            while (running && fillRequested.getAndSet(false)) {
                Loops.guarded(LOG, "pick of queue " + queue, ctx.metrics(), this::fillOnce);
            }
        } finally {
            fillRunning.set(false);
        }
        if (running && fillRequested.get()) {
            requestFill();
        }
    }

    /** One fill: dispatch what is buffered, claim for the free demand, dispatch again, plan the next poll. */
    void fillOnce() {
        if (pauses.isPaused(queue)) {
            // Nothing starts and the prefetched rows go back (another node may not be paused yet
            // in its view, but the claim refuses the queue for every node already). A failed release
            // still polls on: the rows it could not give back lapse to the reaper.
            try {
                releaseBuffered();
            } finally {
                schedulePoll(config.poll().interval().toMillis());
            }
            return;
        }
        dispatch();
        int demand = demand();
        if (demand < minDemand()) {
            return;  // a finishing step asks again
        }
        if (backlogged && !buffer.isEmpty()) {
            // Busy, with rows in hand for the slots meanwhile: a flush that is about to run takes
            // this claim into its transaction. Flag first, then look: a flush that ends after the
            // look sees the flag and asks again; one that ended before it is seen as not flushing.
            leftToFlush.set(true);
            if (flusher.flushing()) {
                return;
            }
            leftToFlush.set(false);
        }
        adaptPrefetch();
        if (!claiming.compareAndSet(false, true)) {
            Runnable hook = claimBusyHook;
            if (hook != null) {
                hook.run();
            }
            leftToFlush.set(true);  // a claim riding a flush is under way: that flush's end asks again
            // ... unless it ended between the failed attempt and the flag, its flush's end reading the
            // flag still unset: look again, and take the request back to ask for it here
            if (!claiming.get() && leftToFlush.getAndSet(false)) {
                requestFill();
            }
            return;
        }
        List<Picked> rows;
        try {
            demand = demand();
            rows = demand < minDemand() ? List.of() : picker.pick(demand);
        } catch (RuntimeException e) {
            schedulePoll(backoff());
            throw e;
        } finally {
            claiming.set(false);
        }
        if (demand < minDemand()) {
            return;  // a ride claimed meanwhile
        }
        ctx.metrics().picks.increment();
        ctx.metrics().picked.add(rows.size());
        if (rows.size() < demand) {
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
        backlogged = rows.size() >= demand;
        for (Picked p : rows) {
            buffer.add(track(p));
        }
        claimEvents(rows.size(), demand);
        if (!running) {
            Loops.guarded(LOG, "drain release of queue " + queue, ctx.metrics(), this::releaseBuffered);
            return;
        }
        dispatch();
        if (rows.size() < demand) {
            schedulePoll(rows.isEmpty() ? backoff() : config.poll().interval().toMillis());
        } else {
            idleDelayMillis = config.poll().interval().toMillis();
            schedulePoll(idleDelayMillis);
        }
    }

    /** The claim's events, when listened to: what it kept of its demand, and the queue's fill right after. */
    private void claimEvents(int count, int demand) {
        EngineEventBus bus = ctx.bus();
        if (bus.on(EventKind.ROWS_CLAIMED)) {
            bus.publish(new RowsClaimed(queue, config.node().id(), count, demand));
        }
        if (bus.on(EventKind.QUEUE_SATURATION)) {
            bus.publish(new QueueSaturation(queue, inFlight(), buffer.size(), concurrency, prefetch));
        }
    }

    @Override
    public Flusher.RiddenClaim ride() {
        if (!backlogged || !running || pauses.isPaused(queue)) {
            return null;
        }
        int demand = demand();
        if (demand < minDemand() || !claiming.compareAndSet(false, true)) {
            return null;  // too few free slots, or this queue's own fill is claiming
        }
        // the claim flag is ours until committed or abandoned: no fill claims the same demand meanwhile
        adaptPrefetch();
        demand = demand();
        if (demand < minDemand()) {
            claiming.set(false);
            return null;
        }
        return new RiddenFill(demand);
    }

    @Override
    public void flushEnded() {
        if (leftToFlush.getAndSet(false)) {
            requestFill();
        }
    }

    /** This queue's claim inside a flush transaction; holds the claim flag until the transaction's end. */
    private final class RiddenFill implements Flusher.RiddenClaim {
        private final int demand;
        private List<Picked> rows = List.of();

        RiddenFill(int demand) {
            this.demand = demand;
        }

        @Override
        public void claim(java.sql.Connection c) throws java.sql.SQLException {
            rows = picker.claimIn(c, demand);
        }

        @Override
        public void committed() {
            try {
                ctx.metrics().picks.increment();
                ctx.metrics().picksInFlush.increment();
                ctx.metrics().picked.add(rows.size());
                backlogged = rows.size() >= demand;
                List<Picked> admitted = rows;
                try {
                    admitted = picker.admit(rows);  // releases the denied; on failure releases them all
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "gen-durable queue " + queue + ": admission of a claim that rode a flush failed: " + e);
                    admitted = List.of();
                }
                try {
                    ctx.events().picked(queue, admitted.size());
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "gen-durable: an engine observer failed: " + e);
                }
                for (Picked p : admitted) {
                    buffer.add(track(p));
                }
                claimEvents(admitted.size(), demand);
                if (!running) {
                    Loops.guarded(LOG, "drain release of queue " + queue, ctx.metrics(), Scheduler.this::releaseBuffered);
                    return;
                }
                dispatch();
            } finally {
                endFill();
            }
        }

        @Override
        public void abandoned(boolean mayHaveCommitted) {
            try {
                if (mayHaveCommitted && !rows.isEmpty()) {
                    // the commit may have landed: give the rows back by their tokens (a no-op if it did not)
                    Loops.guarded(LOG, "release of an unconfirmed claim of queue " + queue, ctx.metrics(),
                            () -> releases.release(worker, rows));
                }
            } finally {
                endFill();
            }
        }
    }

    /** Tests only: one claim and admission of up to {@code demand} rows, as a fill runs it; nothing is buffered or run. */
    List<Picked> pickForTest(int demand) {
        return picker.pick(demand);
    }

    /** Tests only: gives claimed rows back, as a drain or a paused queue does (their gate slots too). */
    int releaseForTest(List<Picked> rows) {
        return releases.release(worker, rows);
    }

    /** Tests only: takes the claim flag, as a claim riding a flush does. */
    void beginClaimForTest() {
        claiming.set(true);
    }

    /** Tests only: gives the claim flag back, as a riding claim's end does. */
    void endFillForTest() {
        endFill();
    }

    /** Gives the claim flag back; the flush's end ({@link #flushEnded}) runs a fill left to it meanwhile. */
    private void endFill() {
        claiming.set(false);
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
                nextPoll = timer.schedule(this::requestFill, delayMillis, TimeUnit.MILLISECONDS);
            }
        }
    }

    /**
     * Starts drainers on the step pool for the buffered rows that can start now (a free slot each)
     * and that no searching drainer will take. A drainer runs rows one after another while there
     * are rows and slots ({@link #drain}): a steady stream of short steps costs no thread hand-off
     * per step, and each row still gets its own thread at once when the steps are slow (every
     * drainer busy in step code counts for nothing here).
     */
    private void dispatch() {
        while (true) {
            int s = searching.get();
            if (s >= startable()) {
                return;
            }
            if (!searching.compareAndSet(s, s + 1)) {
                continue;
            }
            try {
                steps.execute(drainer);
            } catch (RuntimeException e) {
                // refused (or failed otherwise): this drainer never runs, so it searches for nothing
                searching.decrementAndGet();
                LOG.log(Level.WARNING, "gen-durable queue " + queue + ": the step executor refused work: " + e);
                return;
            }
        }
    }

    /**
     * @return rows and resumed chains that could start now, a free slot each: resumed chains always,
     * buffered rows while the queue runs, is not paused and fewer than {@link #awaitCap} outcomes wait
     */
    private int startable() {
        int rows = ready.isEmpty() ? 0 : ready.size();
        if (running && awaitingFlush.get() < awaitCap && !buffer.isEmpty() && !pauses.isPaused(queue)) {
            rows += buffer.size();
        }
        return rows == 0 ? 0 : Math.min(rows, concurrency - inFlight.get());
    }

    /**
     * One drainer on a step thread, counted in {@link #searching} while it looks for a row: takes a
     * slot and a buffered row, runs the step, and looks again; ends when there is no row or no slot.
     */
    private void drain() {
        while (true) {
            Runnable row = take();
            if (row == null) {
                searching.decrementAndGet();
                // A row buffered (or a slot freed) after take() looked, by a dispatch that saw this
                // drainer still searching, would wait for the next fill: look once more.
                int s = searching.get();
                if (startable() <= s || !searching.compareAndSet(s, s + 1)) {
                    return;
                }
                continue;
            }
            searching.decrementAndGet();
            try {
                row.run();
            } catch (RuntimeException | Error e) {
                drainerLost(e);
                throw e;
            }
            searching.incrementAndGet();
        }
    }

    /**
     * A step thread ends with {@code e} (a step's {@link VirtualMachineError}, rethrown so the
     * thread dies of it): it is not counted as searching, and the rows it would have taken get a
     * drainer of their own. Its row's slot and claim were ended already ({@link #runStep}).
     */
    private void drainerLost(Throwable e) {
        try {
            dispatch();
        } catch (RuntimeException | Error again) {
            e.addSuppressed(again);
        }
    }

    /**
     * @return a resumed chain, else a buffered row, with a slot taken for it; or null when there is
     * none or no free slot
     */
    private Runnable take() {
        while (true) {
            int n = inFlight.get();
            if (n >= concurrency) {
                return null;
            }
            if (!inFlight.compareAndSet(n, n + 1)) {
                continue;
            }
            Resumed resumed = ready.poll();
            if (resumed != null) {
                resumed.chain.running();  // its wait for the inline continue's commit is over
                return resumed;
            }
            Run row = running && awaitingFlush.get() < awaitCap && !pauses.isPaused(queue) ? buffer.poll() : null;
            if (row == null) {
                inFlight.decrementAndGet();
                return null;
            }
            if (adaptivePrefetch && System.nanoTime() - row.buffered > BUFFER_WAIT_NANOS) {
                prefetch = Math.max(concurrency, prefetch / 2);  // rows wait here: slow steps (adaptPrefetch)
            }
            return row;
        }
    }

    /** A chain's next step, its inline continue durable: runs on a drainer that took a slot for it. */
    private record Resumed(Run chain, Runnable next) implements Runnable {
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

    /**
     * A cancel of this row was requested (here, or seen by the heartbeat): the thread running its
     * step's code, if any, is interrupted. The row keeps its claim, key and slot until the step
     * returns; its outcome's flush then ends it cancelled.
     *
     * @param id the row
     */
    public void interrupt(long id) {
        Claim c = claimed.get(id);
        if (c != null) {
            c.interrupt();
        }
    }

    /** Registers the claim for the heartbeat; @return the row's run, to buffer */
    private Run track(Picked p) {
        Long id = p.row().id();
        Claim c = new Claim(id, p.row().claimToken(), p.row().leaseUntil());
        claimed.put(id, c);
        return new Run(p, c);
    }

    /** One step on a step thread: its state in one object (no per-step captured arrays or boxing). */
    private final class Run implements Runnable, StepRunner.Continued, StepRunner.Resumer {
        private final Picked picked;
        private final Claim claim;
        // set by codeDone in the step's thread, read by ended in the thread that completes its flush
        // (ordered by the flusher's lock and the future's completion)
        private volatile boolean released;
        /** when the row entered the buffer (System.nanoTime) */
        private final long buffered = System.nanoTime();

        Run(Picked picked, Claim claim) {
            this.picked = picked;
            this.claim = claim;
        }

        @Override
        public void run() {
            runStep(this);
        }

        @Override
        public boolean live(ClaimedRow row) {
            try {
                return leaseLive(claim, row);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "gen-durable: the lease of instance " + row.id()
                        + " could not be confirmed before its step; the step is left to the reaper: " + e);
                return false;
            }
        }

        @Override
        public void moved(long id, long from, long to, java.time.Instant leaseUntil) {
            claim.lease.set(new Lease(to, leaseUntil));
        }

        /** A timed-out step ignored its interrupt past the grace: its claim is heartbeated no more (its slot stays taken). */
        @Override
        public void abandon(ClaimedRow row) {
            claimed.remove(claim.id, claim);
        }

        /** Its inline continue is durable: the next step waits for a slot, before any buffered row. */
        @Override
        public void resume(Runnable next) {
            ready.add(new Resumed(this, next));
            dispatch();
        }

        /** A drainer took a slot for its resumed chain: it counts as running again. */
        void running() {
            awaitingFlush.decrementAndGet();
            released = false;
        }

        /** Its chain's last outcome is durable, stale or failed: see {@link #stepEnded}. */
        void ended(Flusher.Result result, Throwable failure) {
            stepEnded(this, result, failure);
        }

        /**
         * The step's code is done (for now: an inline continue resumes it); its outcome waits for a
         * flush: the slot runs another step meanwhile (this thread's drainer takes the next buffered
         * row itself). The fill loop is woken only when a claim is due (below that a fill does nothing).
         */
        void codeDone() {
            claim.leave();
            awaitingFlush.incrementAndGet();
            inFlight.decrementAndGet();
            released = true;
            if (demand() >= minDemand()) {
                requestFill();
            }
        }
    }

    private void runStep(Run run) {
        run.claim.enter();
        try {
            // The row stays claimed and heartbeated until its outcome's flush ends; this thread does
            // not wait for that flush (ended runs when it does).
            runner.runThen(run.picked, worker, flusher, this::mayChain, run, run::codeDone, run::ended, run);
        } catch (RuntimeException | Error e) {
            run.ended(null, e);
            if (e instanceof Error error) {
                throw error;
            }
        } finally {
            run.claim.leave();
        }
    }

    /** A step's last outcome is durable, stale, or could not be written: its claim and slot (or wait) end. */
    private void stepEnded(Run run, Flusher.Result result, Throwable failure) {
        long id = run.picked.row().id();
        try {
            if (failure != null) {
                ctx.metrics().loopErrors.increment();
                LOG.log(Level.WARNING, "gen-durable: the outcome of instance " + id
                        + " could not be written; its lease will expire and the step will run again: "
                        + (failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure));
            } else if (result == Flusher.Result.STALE) {
                LOG.log(Level.DEBUG, "gen-durable: stale outcome for instance " + id + " dropped");
            }
        } finally {
            claimed.remove(run.claim.id, run.claim);
            (run.released ? awaitingFlush : inFlight).decrementAndGet();
            requestFill();
        }
    }

    /**
     * @return whether a step's next may run inline in this worker: the queue runs and is not paused
     * (a paused queue's {@code next} waits in it, as operations.md promises: pause is the brake)
     */
    private boolean mayChain() {
        return running && !pauses.isPaused(queue);
    }

    /** Extends the leases of every row this scheduler holds (the heartbeat's beat; tests call it directly). */
    public void heartbeatOnce() {
        Map<Long, Lease> presented = new java.util.HashMap<>(claimed.size() * 2);
        claimed.forEach((id, c) -> presented.put(id, c.lease.get()));
        renew(presented);
    }

    /**
     * Renews these claims, slots first (a lease-based limiter), then the rows: a row whose slot
     * could not be renewed keeps its old lease and lapses with it, so no row outlives its slot.
     * Each renewed claim whose token is still the one presented records its new lease.
     *
     * @return the ids renewed
     */
    private java.util.Set<Long> renew(Map<Long, Lease> presented) {
        Map<Long, Long> claims = new java.util.HashMap<>(presented.size() * 2);
        presented.forEach((id, l) -> claims.put(id, l.token()));
        java.util.Set<Long> unrenewed = limiter.renew(queue, Map.copyOf(claims));
        claims.keySet().removeAll(unrenewed);
        if (claims.isEmpty()) {
            return java.util.Set.of();
        }
        java.time.Instant until = ctx.clock().instant().plus(config.lease().ttl());
        java.util.Set<Long> cancelling = new java.util.HashSet<>();
        java.util.Set<Long> renewed = ctx.db().inTransaction(c -> {
            cancelling.clear();
            return leaseSql.heartbeat(c, worker, claims, until, cancelling);
        });
        cancelling.forEach(this::interrupt);  // a cancel requested on another node: stop the step here
        for (Long id : renewed) {
            Claim c = claimed.get(id);
            Lease was = presented.get(id);
            if (c != null && was != null) {
                c.lease.compareAndSet(was, new Lease(was.token(), until));
            }
        }
        return renewed;
    }

    /**
     * Whether a claim may start its step: its lease is live beyond the next heartbeat, or a renewal
     * (fenced by its token, slot included) has just made it so. A lease that lapsed before its step
     * started (a statement or commit slower than the lease, a wait in the buffer that no heartbeat
     * covered) may have been reaped and claimed elsewhere: the step must not run here as well.
     */
    private boolean leaseLive(Claim claim, ClaimedRow row) {
        Lease l = claim.lease.get();
        if (l.token() != row.claimToken()) {
            return false;
        }
        java.time.Instant now = ctx.clock().instant();
        if (l.until() != null && l.until().isAfter(now.plus(config.lease().heartbeatInterval()))) {
            return true;
        }
        return renew(Map.of(claim.id, l)).contains(claim.id);
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

    /** @return how many buffered claims went back (those still this node's) */
    private int releaseBuffered() {
        List<Picked> rows = new ArrayList<>();
        List<Claim> claims = new ArrayList<>();
        for (Run r; (r = buffer.poll()) != null; ) {
            rows.add(r.picked);
            claims.add(r.claim);
        }
        if (rows.isEmpty()) {
            return 0;
        }
        // Forgotten before the release, whatever it does: a claim this node no longer means to run
        // is never heartbeated again, so if the release fails the reaper takes it at lease expiry.
        claims.forEach(c -> claimed.remove(c.id, c));
        // Only the claims still ours go back, and only their slots are credited: a row reaped
        // while it sat in the buffer may be running elsewhere, holding a slot of the gate.
        int n = releases.release(worker, rows);
        ctx.metrics().released(queue, n);
        LOG.log(Level.INFO, "gen-durable queue " + queue + ": released " + n + " of " + rows.size()
                + " buffered claims on stop");
        return n;
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition, long deadline) {
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
