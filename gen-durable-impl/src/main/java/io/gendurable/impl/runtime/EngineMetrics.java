package io.gendurable.impl.runtime;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's counters, plain Java. The container layer exposes them as MicroProfile Metrics;
 * tests read them directly. The public names with "pick" ({@link #picks}, {@link #picked} and the
 * like) count claims; they keep their names because users read them (CHANGELOG).
 */
public final class EngineMetrics {
    /** Steps run, by outcome kind. */
    public final Map<String, LongAdder> steps = new ConcurrentHashMap<>();
    /** Claim statements run. */
    public final LongAdder picks = new LongAdder();
    /** Claim statements run inside a flush's transaction (counted in {@link #picks} too): a busy queue's claims that cost no commit of their own. */
    public final LongAdder picksInFlush = new LongAdder();
    /**
     * New rows claimed by their own insert for a free slot of this node ({@code gendurable.start-at-insert}):
     * their pickup cost no claim statement and no commit of its own. Not counted in {@link #picked}.
     */
    public final LongAdder startedAtInsert = new LongAdder();
    /**
     * Debounced inserts ({@code InsertOptions.debounce}) that found their key's instance still waiting
     * for its first start and moved it instead of inserting one.
     */
    public final LongAdder debounced = new LongAdder();
    /** Rows claimed. */
    public final LongAdder picked = new LongAdder();
    /**
     * Claim statements of a scheduler that took fewer rows than it asked for: the queue had fewer
     * due rows, or other claims held them locked (skipped, {@code SKIP LOCKED}), or K = 1 keys held them back.
     */
    public final LongAdder shortPicks = new LongAdder();
    /** Of those, the claims that took no row at all. */
    public final LongAdder emptyPicks = new LongAdder();
    /** Outcomes whose ownership guard failed: committed nothing. */
    public final LongAdder stale = new LongAdder();
    /** Expired leases the reaper returned to runnable. */
    public final LongAdder reaped = new LongAdder();
    /** Runnable rows blocked behind their busy K = 1 key (out of the claim index until their turn). */
    public final LongAdder keysBlocked = new LongAdder();
    /** Blocked rows the sweep unblocked: their key had none executing (the backstop; the flush unblocks most). */
    public final LongAdder keysUnblocked = new LongAdder();
    /** Claims of a dead predecessor released at start-up. */
    public final LongAdder reclaimed = new LongAdder();
    /** Terminal rows deleted by the GC. */
    public final LongAdder gcSwept = new LongAdder();
    /** Fire attempts of a schedule that could not fire (its row rolled back alone, the others fired). */
    public final LongAdder schedulesPoisoned = new LongAdder();
    /** Flush transactions committed. */
    public final LongAdder flushes = new LongAdder();
    /** Outcomes written by those flushes (stale ones included). */
    public final LongAdder flushedOutcomes = new LongAdder();
    /** Outcomes a flush carried to a later one because another transaction held their row (or parent) locked. */
    public final LongAdder flushDeferred = new LongAdder();
    /** Flush attempts that failed (retried, then failed to the step). */
    public final LongAdder flushErrors = new LongAdder();
    /** When each background iteration last began and ended, by name (stamped by {@link Loops#guarded}; liveness reads it). */
    public final LoopTicks loops = new LoopTicks();
    /** Background loop iterations that threw (logged and counted; the loop goes on). */
    public final LongAdder loopErrors = new LongAdder();
    /** Buffered claims released by a drain. */
    public final LongAdder released = new LongAdder();
    /** Await deadlines that fired (a wake with no awaited signal). */
    public final LongAdder awaitTimeouts = new LongAdder();
    /** Probe statements run by the await watcher. */
    public final LongAdder awaitProbes = new LongAdder();
    /** Signals stored in an inbox. */
    public final LongAdder signalsDelivered = new LongAdder();
    /** Signals whose dedup key was already seen. */
    public final LongAdder signalsDuplicate = new LongAdder();
    /** Signals with no live target. */
    public final LongAdder signalsNoTarget = new LongAdder();
    /** Pokes sent to other nodes (notifications, after coalescing). */
    public final LongAdder pokesSent = new LongAdder();
    /** Pokes received from other nodes. */
    public final LongAdder pokesReceived = new LongAdder();
    /** Times the poke listener reconnected after losing its connection. */
    public final LongAdder pokeReconnects = new LongAdder();
    /** Claims or admissions that lost a cross-node race on a constraint and were retried. */
    public final LongAdder contended = new LongAdder();
    /**
     * Claims that lost the K = 1 race in every retry and gave up until the queue's next poll
     * (expected under contention: logged at INFO, not as a loop error).
     */
    public final LongAdder contendedDeferred = new LongAdder();
    /** Admissions in which a concurrency gate admitted fewer rows than wanted. */
    public final LongAdder gateThrottled = new LongAdder();
    /** Rows a rate limit denied for lack of tokens. */
    public final LongAdder rateThrottled = new LongAdder();
    /** Rows that named a rate limit not configured on this node (they stall). */
    public final LongAdder unknownRateLimit = new LongAdder();
    /** Gate counters the reconciler corrected, and idle or orphaned bucket keys it swept. */
    public final LongAdder bucketsReconciled = new LongAdder();
    /** Engine events dropped: the event dispatcher's queue was full (a listener fell behind), or the engine had stopped. */
    public final LongAdder eventsDropped = new LongAdder();
    /** Deliveries of an engine event to a listener (or to the CDI observers) that threw. */
    public final LongAdder eventsFailed = new LongAdder();
    /** Steps that ran past their timeout (their thread interrupted), in total. */
    public final LongAdder stepTimeouts = new LongAdder();
    /** The same by FSM and step. */
    private final Map<FsmStep, LongAdder> stepTimeoutsByStep = new ConcurrentHashMap<>();

    /** An FSM's step, a key of {@link #stepTimeouts(String, String)}. */
    private record FsmStep(String fsm, String step) {
    }

    /**
     * A step ran past its timeout.
     *
     * @param fsm  its FSM
     * @param step the step
     */
    public void stepTimedOut(String fsm, String step) {
        stepTimeouts.increment();
        stepTimeoutsByStep.computeIfAbsent(new FsmStep(fsm, step), k -> new LongAdder()).increment();
    }

    /**
     * @param fsm  an FSM
     * @param step one of its steps
     * @return how many runs of that step ran past their timeout
     */
    public long stepTimeouts(String fsm, String step) {
        LongAdder a = stepTimeoutsByStep.get(new FsmStep(fsm, step));
        return a == null ? 0 : a.sum();
    }

    /** The per-queue share of {@link #reclaimed}, {@link #released}, {@link #contended} and {@link #contendedDeferred}. */
    private final Map<String, QueueCounts> byQueue = new ConcurrentHashMap<>();

    /**
     * The counters of one queue that the metrics publish with a {@code queue} tag: each also counts in
     * the engine-wide field of the same name. Only queues this node serves get one, so the series
     * are bounded by the configuration.
     */
    public static final class QueueCounts {
        /** Claims of a dead predecessor this queue's scheduler released at start-up. */
        public final LongAdder reclaimed = new LongAdder();
        /** Buffered claims of this queue released by a drain. */
        public final LongAdder released = new LongAdder();
        /** This queue's claims or admissions that lost a cross-node race and were retried. */
        public final LongAdder contended = new LongAdder();
        /** This queue's claims that lost the K = 1 race in every retry. */
        public final LongAdder contendedDeferred = new LongAdder();

        QueueCounts() {
        }
    }

    /** @param queue a queue this node serves @return its counters (created at first use) */
    public QueueCounts queue(String queue) {
        return byQueue.computeIfAbsent(queue, q -> new QueueCounts());
    }

    /** @param queue the queue whose scheduler released them @param n claims of a dead predecessor released */
    public void reclaimed(String queue, long n) {
        reclaimed.add(n);
        queue(queue).reclaimed.add(n);
    }

    /** @param queue the queue drained @param n buffered claims it released */
    public void released(String queue, long n) {
        released.add(n);
        queue(queue).released.add(n);
    }

    /** @param queue the queue whose claim or admission lost a cross-node race (and is retried) */
    public void contended(String queue) {
        contended.increment();
        queue(queue).contended.increment();
    }

    /** @param queue the queue whose claim lost the K = 1 race in every retry */
    public void contendedDeferred(String queue) {
        contendedDeferred.increment();
        queue(queue).contendedDeferred.increment();
    }

    /** Total step nanoseconds (user code), for a mean. */
    public final LongAdder stepNanos = new LongAdder();

    public void step(String kind, long nanos) {
        steps.computeIfAbsent(kind, k -> new LongAdder()).increment();
        stepNanos.add(nanos);
    }

    /** @return steps run with outcomes of this kind ({@code next}, {@code retry}, {@code done}, {@code stop}) */
    public long steps(String kind) {
        LongAdder a = steps.get(kind);
        return a == null ? 0 : a.sum();
    }
}
