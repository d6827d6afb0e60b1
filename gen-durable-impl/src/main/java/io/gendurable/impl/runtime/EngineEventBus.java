package io.gendurable.impl.runtime;

import io.gendurable.events.EngineEvent;
import io.gendurable.events.EngineEventListener;
import io.gendurable.events.OperatorAction;
import io.gendurable.events.OutcomeStale;
import io.gendurable.events.StepCompleted;
import io.gendurable.events.StepFailed;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Hands the engine's events to their listeners (plain {@link EngineEventListener}s, and the CDI
 * container's observers through one such listener) off the engine's threads.
 *
 * <p><b>Nothing when nobody listens</b>: a producer asks {@link #on(EventKind)} (one volatile read
 * and an AND against the listeners' mask) before it builds an event; with no listener of that type
 * nothing is built or queued.
 *
 * <p><b>An observer cannot stall the engine</b>: {@link #publish} only offers the event to a bounded
 * queue ({@value #CAPACITY} events) and returns; one dispatcher thread, started at the first event,
 * delivers them in order. An event that finds the queue full is dropped and counted
 * ({@link EngineMetrics#eventsDropped}); a listener that throws is logged (its first failure at
 * WARNING, later ones at DEBUG) and counted ({@link EngineMetrics#eventsFailed}), and the next
 * listener and event go on. Observers thus never run on a claim, step, flush or sweep thread, nor
 * inside an engine transaction; a blocked one holds up only the dispatcher.
 *
 * <p>It is also an {@link EngineEvents}, told of each step's outcome and each operator's action
 * beside the engine's other observers: stale outcomes become {@link OutcomeStale}, and the plain
 * listeners get the step and operator events (the container fires their CDI events itself).
 */
public final class EngineEventBus implements EngineEvents {
    private static final Logger LOG = System.getLogger("io.gendurable.events");
    /** Events waiting for the dispatcher at most; more are dropped and counted. */
    public static final int CAPACITY = 4096;
    private static final Object STOP = new Object();

    private record Registered(EngineEventListener listener, long mask) {
    }

    private final EngineMetrics metrics;
    private final ThreadFactory threads;
    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final List<Registered> listeners = new CopyOnWriteArrayList<>();
    private final Set<EngineEventListener> failedOnce = ConcurrentHashMap.newKeySet();
    private volatile long mask;
    private volatile Thread dispatcher;
    private volatile boolean closed;
    // set by close when its wait is over: the dispatcher ends after the delivery under way
    private volatile boolean abandoned;

    /**
     * @param metrics counts the dropped events and the listeners' failures
     * @param threads makes the dispatcher thread (the container's managed thread factory), or null for a daemon thread
     */
    public EngineEventBus(EngineMetrics metrics, ThreadFactory threads) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.threads = threads != null ? threads : r -> {
            Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * @param kind an event type
     * @return whether some listener wants events of that type: build and {@link #publish} one only then
     */
    public boolean on(EventKind kind) {
        return (mask & kind.bit) != 0;
    }

    /**
     * Queues an event for its listeners and returns at once; dropped and counted when the queue is
     * full (a listener fell behind) or the engine has stopped.
     *
     * @param event the event, whose type {@link #on} said is listened to
     */
    public void publish(EngineEvent event) {
        if (closed || !queue.offer(event)) {
            metrics.eventsDropped.increment();
            return;
        }
        if (dispatcher == null) {
            startDispatcher();
        }
    }

    /**
     * Registers a listener of every event type.
     *
     * @param listener the listener
     */
    public void addListener(EngineEventListener listener) {
        add(listener, EventKind.ALL);
    }

    /**
     * Registers a listener of some event types (and of their subtypes: {@code EngineEvent} is all of them).
     *
     * @param listener the listener
     * @param types    the event types it receives
     * @throws IllegalArgumentException when a type is not an engine event type
     */
    public void addListener(EngineEventListener listener, Collection<Class<? extends EngineEvent>> types) {
        long m = 0;
        for (Class<? extends EngineEvent> t : types) {
            m |= EventKind.maskOf(t);
        }
        add(listener, m);
    }

    /**
     * Registers a listener of the kinds in a mask.
     *
     * @param listener the listener
     * @param kinds    the bits of the {@link EventKind}s it receives
     */
    public synchronized void add(EngineEventListener listener, long kinds) {
        Objects.requireNonNull(listener, "listener");
        if (kinds != 0) {
            listeners.add(new Registered(listener, kinds));
            recompute();
        }
    }

    /**
     * Unregisters a listener (every registration of it). Events already queued for it may still reach it.
     *
     * @param listener the listener
     */
    public synchronized void removeListener(EngineEventListener listener) {
        listeners.removeIf(r -> r.listener == listener);
        recompute();
    }

    private void recompute() {
        long m = 0;
        for (Registered r : listeners) {
            m |= r.mask;
        }
        mask = m;
    }

    /** @return whether the dispatcher thread was started (an event has been published) */
    public boolean dispatching() {
        return dispatcher != null;
    }

    /** @return events queued and not yet delivered */
    public int pending() {
        return queue.size();
    }

    private synchronized void startDispatcher() {
        if (dispatcher != null || closed) {
            return;
        }
        Thread t = threads.newThread(this::dispatch);
        t.setName("gendurable-events");
        dispatcher = t;
        t.start();
    }

    private void dispatch() {
        // ends once the stop gave up waiting, though a listener swallowed the stop's interrupt
        while (!abandoned) {
            Object next;
            try {
                next = queue.take();
            } catch (InterruptedException e) {
                return;  // stopped with a listener blocked or events left: they are counted as dropped
            }
            if (next == STOP) {
                return;
            }
            deliver((EngineEvent) next);
        }
    }

    private void deliver(EngineEvent event) {
        long bit = EventKind.of(event).bit;
        for (Registered r : listeners) {
            if ((r.mask & bit) == 0) {
                continue;
            }
            try {
                r.listener.onEvent(event);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                metrics.eventsFailed.increment();
                if (failedOnce.add(r.listener)) {
                    LOG.log(Level.WARNING, "gen-durable: an engine event listener (" + r.listener.getClass().getName()
                            + ") failed on " + event.getClass().getSimpleName() + "; it keeps receiving events, its "
                            + "further failures are counted in gendurable.events.failed and logged at DEBUG", e);
                } else {
                    LOG.log(Level.DEBUG, "gen-durable: an engine event listener failed on " + event + ": " + e);
                }
            }
        }
    }

    /**
     * Stops at the engine's stop: the events already queued are delivered for up to {@code wait},
     * then the dispatcher is interrupted and what is left is dropped and counted. Events published
     * later are dropped and counted. Idempotent.
     *
     * @param wait how long the listeners may take to receive what is queued
     */
    public void close(Duration wait) {
        Thread t;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            t = dispatcher;
        }
        if (t == null) {
            return;
        }
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            if (queue.offer(STOP, wait.toNanos(), TimeUnit.NANOSECONDS)) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            abandoned = true;
            t.interrupt();
            int left = (int) queue.stream().filter(o -> o != STOP).count();
            queue.clear();
            // a listener that swallowed the interrupt returns to an empty queue: the mark ends it
            queue.offer(STOP);
            metrics.eventsDropped.add(left);
            LOG.log(Level.WARNING, "gen-durable: an engine event listener was still busy " + wait.toMillis()
                    + " ms after the engine stopped; " + left + " undelivered events dropped");
        }
    }

    @Override
    public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos, String error,
                             boolean stale) {
        if (stale) {
            if (on(EventKind.OUTCOME_STALE)) {
                publish(new OutcomeStale(id, fsm, step, outcome));
            }
        } else if (error != null) {
            if (on(EventKind.STEP_FAILED)) {
                publish(new StepFailed(id, fsm, step, queue, outcome, error, Duration.ofNanos(nanos)));
            }
        } else if (on(EventKind.STEP_COMPLETED)) {
            publish(new StepCompleted(id, fsm, step, queue, outcome, Duration.ofNanos(nanos)));
        }
    }

    @Override
    public void operated(OperatorAction action) {
        if (on(EventKind.OPERATOR_ACTION)) {
            publish(action);
        }
    }
}
