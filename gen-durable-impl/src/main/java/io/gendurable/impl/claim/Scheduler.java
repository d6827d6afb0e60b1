package io.gendurable.impl.claim;

import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.flush.ChildrenSql;
import io.gendurable.impl.flush.Flusher;
import io.gendurable.impl.lease.LeaseSql;
import io.gendurable.impl.poke.LocalPoke;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.step.InboxSql;
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
 */
public final class Scheduler implements LocalPoke.Target {
    private static final Logger LOG = System.getLogger("io.gendurable.claim");

    private final String queue;
    private final int concurrency;
    private final EngineConfig config;
    private final String workerPrefix;
    private final String worker;
    private final Db db;
    private final LeaseSql leaseSql;
    private final ClaimRelease releases;
    private final Picker picker;
    private final EngineEvents events;
    private final StepRunner runner;
    private final Flusher flusher;
    private final ScheduledExecutorService timer;
    private final ExecutorService steps;
    private final InstantSource clock;
    private final EngineMetrics metrics;

    private final ConcurrentLinkedQueue<Picked> buffer = new ConcurrentLinkedQueue<>();
    // id → the fencing token of this worker's latest claim of it (a reaped row re-claimed by this
    // same worker maps to the new claim; the old one's outcome will be stale anyway)
    private final Map<Long, Long> claimed = new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean fillRequested = new AtomicBoolean();
    private final AtomicBoolean fillRunning = new AtomicBoolean();
    private final Object pollLock = new Object();
    private volatile boolean running;
    private volatile long idleDelayMillis;
    private ScheduledFuture<?> nextPoll;
    private ScheduledFuture<?> heartbeat;

    public Scheduler(String queue, int concurrency, EngineConfig config, Db db, ClaimSql claimSql, LeaseSql leaseSql,
              InboxSql inboxSql, ChildrenSql childrenSql, Limiter limiter, EngineEvents events, StepRunner runner, Flusher flusher, ScheduledExecutorService timer, ExecutorService steps,
              InstantSource clock, EngineMetrics metrics) {
        this.queue = queue;
        this.concurrency = concurrency;
        this.config = config;
        this.workerPrefix = config.node().id() + ":" + queue + "@";
        this.worker = workerPrefix + UUID.randomUUID().toString().substring(0, 8);
        this.db = db;
        this.leaseSql = leaseSql;
        this.releases = new ClaimRelease(db, leaseSql, new io.gendurable.impl.admission.BucketSql(claimSql.schema()), clock);
        this.picker = new Picker(queue, worker, config, db, claimSql, releases, inboxSql, childrenSql, limiter, clock,
                metrics);
        this.events = events;
        this.runner = runner;
        this.flusher = flusher;
        this.timer = timer;
        this.steps = steps;
        this.clock = clock;
        this.metrics = metrics;
        this.idleDelayMillis = config.poll().interval().toMillis();
    }

    /** @return the queue this scheduler feeds */
    public String queue() {
        return queue;
    }

    /** @return this incarnation's worker id, stored in {@code locked_by} */
    public String worker() {
        return worker;
    }

    /** @return steps running now */
    public int inFlight() {
        return inFlight.get();
    }

    /** @return claimed rows waiting for a free slot */
    public int buffered() {
        return buffer.size();
    }

    /** Releases a dead predecessor's claims, then starts feeding and heartbeating. Idempotent. */
    public synchronized void start() {
        if (running) {
            return;
        }
        Loops.guarded(LOG, "start-up reclaim of queue " + queue, metrics, this::reclaimPredecessor);
        running = true;
        long hb = config.lease().heartbeatInterval().toMillis();
        heartbeat = timer.scheduleWithFixedDelay(() -> Loops.guarded(LOG, "heartbeat of queue " + queue, metrics,
                this::heartbeatOnce), hb, hb, TimeUnit.MILLISECONDS);
        poke();
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
        synchronized (pollLock) {
            if (nextPoll != null) {
                nextPoll.cancel(false);
            }
        }
        waitUntil(() -> !fillRunning.get(), deadlineNanos);
        Loops.guarded(LOG, "drain release of queue " + queue, metrics, this::releaseBuffered);
    }

    /**
     * Waits until the deadline for running steps to commit, then stops the heartbeat.
     *
     * @param deadlineNanos the drain deadline ({@link System#nanoTime()} base)
     * @return steps still running when the drain gave up (their leases will expire)
     */
    public synchronized int finishStop(long deadlineNanos) {
        waitUntil(() -> inFlight.get() == 0, deadlineNanos);
        if (heartbeat != null) {
            heartbeat.cancel(false);
            heartbeat = null;
        }
        int left = inFlight.get();
        if (left > 0) {
            LOG.log(Level.WARNING, "gen-durable queue " + queue + ": " + left
                    + " steps still running after the drain timeout; their leases will expire");
        }
        return left;
    }

    /** Asks for a fill soon; bursts coalesce into one pick. Resets the idle backoff. */
    public void poke() {
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
                Loops.guarded(LOG, "pick of queue " + queue, metrics, this::fillOnce);
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
        dispatch();
        int demand = concurrency + config.poll().prefetch() - inFlight.get() - buffer.size();
        if (demand < config.poll().minDemand()) {
            return;  // a finishing step asks again
        }
        List<Picked> rows;
        try {
            rows = picker.pick(demand);
        } catch (RuntimeException e) {
            schedulePoll(backoff());
            throw e;
        }
        metrics.picks.increment();
        metrics.picked.add(rows.size());
        try {
            events.picked(queue, rows.size());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: an engine observer failed: " + e);
        }
        for (Picked p : rows) {
            claimed.put(p.row().id(), p.row().claimToken());
            buffer.add(p);
        }
        if (!running) {
            Loops.guarded(LOG, "drain release of queue " + queue, metrics, this::releaseBuffered);
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

    private void dispatch() {
        while (running) {
            int n = inFlight.get();
            if (n >= concurrency) {
                return;
            }
            if (!inFlight.compareAndSet(n, n + 1)) {
                continue;
            }
            Picked row = buffer.poll();
            if (row == null) {
                inFlight.decrementAndGet();
                return;
            }
            try {
                steps.execute(() -> runStep(row));
            } catch (RejectedExecutionException e) {
                inFlight.decrementAndGet();
                buffer.add(row);
                LOG.log(Level.WARNING, "gen-durable queue " + queue + ": the step executor refused work: " + e);
                return;
            }
        }
    }

    private void runStep(Picked picked) {
        long id = picked.row().id();
        long[] token = {picked.row().claimToken()};
        try {
            Flusher.Result r = runner.run(picked, worker, flusher, () -> running, (row, from, to) -> {
                claimed.replace(row, from, to);
                token[0] = to;
            });
            if (r == Flusher.Result.STALE) {
                LOG.log(Level.DEBUG, "gen-durable: stale outcome for instance " + id + " dropped");
            }
        } catch (RuntimeException e) {
            metrics.loopErrors.increment();
            LOG.log(Level.WARNING, "gen-durable: the outcome of instance " + id
                    + " could not be written; its lease will expire and the step will run again: " + e);
        } finally {
            claimed.remove(id, token[0]);
            inFlight.decrementAndGet();
            requestFill();
        }
    }

    /** Extends the leases of every row this scheduler holds. Package-visible for tests. */
    void heartbeatOnce() {
        if (claimed.isEmpty()) {
            return;
        }
        Map<Long, Long> claims = Map.copyOf(claimed);
        db.inTransaction(c -> leaseSql.heartbeat(c, worker, claims, clock.instant().plus(config.lease().ttl())));
    }

    private void reclaimPredecessor() {
        // Stale: not renewed for two heartbeats. A live twin with our node id renews sooner.
        Duration staleness = config.lease().ttl().minus(config.lease().heartbeatInterval().multipliedBy(2));
        int n = db.inTransaction(c -> leaseSql.reclaimPredecessor(c, workerPrefix, worker,
                clock.instant().plus(staleness.isNegative() ? Duration.ZERO : staleness), clock.instant()));
        if (n > 0) {
            metrics.reclaimed.add(n);
            LOG.log(Level.INFO, "gen-durable queue " + queue + ": released " + n + " claims of a dead predecessor");
        }
    }

    private void releaseBuffered() {
        List<Picked> rows = new ArrayList<>();
        for (Picked p; (p = buffer.poll()) != null; ) {
            rows.add(p);
        }
        if (rows.isEmpty()) {
            return;
        }
        // Only the claims still ours go back, and only their slots are credited: a row reaped
        // while it sat in the buffer may be running elsewhere, holding a slot of the gate.
        int n = releases.release(worker, rows);
        rows.forEach(p -> claimed.remove(p.row().id(), p.row().claimToken()));
        metrics.released.add(n);
        LOG.log(Level.INFO, "gen-durable queue " + queue + ": released " + n + " of " + rows.size()
                + " buffered claims on stop");
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
