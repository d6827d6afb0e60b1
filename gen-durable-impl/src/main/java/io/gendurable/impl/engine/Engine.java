package io.gendurable.impl.engine;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.DurableOperations;
import io.gendurable.Fsm;
import io.gendurable.FsmNames;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceSnapshot;
import io.gendurable.NewInstance;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.events.EngineEvent;
import io.gendurable.events.EngineEventListener;
import io.gendurable.impl.claim.PausedQueues;
import io.gendurable.impl.claim.Scheduler;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.CallerTransactions;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.gauges.QueueGauges;
import io.gendurable.impl.gc.Gc;
import io.gendurable.impl.health.EngineHealth;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.lease.Reaper;
import io.gendurable.impl.nodes.NodeBeacon;
import io.gendurable.impl.ops.Rows;
import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.runtime.EngineEventBus;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.EventKind;
import io.gendurable.impl.runtime.QueueActivity;
import io.gendurable.impl.schedule.Schedules;
import io.gendurable.impl.trace.Tracing;
import io.gendurable.impl.await.AwaitBridge;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;

/**
 * The engine: plain Java, no container types. It receives a DataSource, its executors, a clock
 * and a validated configuration, and owns none of them except the persistence unit it builds.
 * {@link #start()} migrates (unless disabled) and starts the schedulers, flushers, reaper and GC;
 * {@link #stop()} drains. Both are idempotent. Its parts are wired by {@link EngineServices} and
 * started and stopped by {@link EngineLifecycle}; this class is the API over them.
 */
public final class Engine implements GenDurable, AutoCloseable {
    private final EngineServices s;
    private final EngineLifecycle lifecycle;

    private Engine(EngineSetup setup) {
        this.s = new EngineServices(setup);
        this.lifecycle = new EngineLifecycle(s);
    }

    /**
     * @return each queue that a registered FSM defaults to ({@code @DurableFsm(queue = …)}) and this
     *         node does not serve ({@code gendurable.queues}) → those FSMs' names, sorted: their
     *         instances run only on a node that serves it
     */
    public Map<String, List<String>> unservedQueues() {
        return s.unservedQueues();
    }

    /** @return a builder */
    public static Builder builder() {
        return new Builder();
    }

    /** Migrates (unless {@code migrate-at-start=false}) and starts every background service. Idempotent. */
    public void start() {
        lifecycle.start();
    }

    /**
     * What {@link #start()} does first, and only that: migrates (unless {@code migrate-at-start=false})
     * and seeds the limits, starting no background service. An engine driven only through its
     * {@link DrainRunner} (users' tests, through {@code io.gendurable.testing}) is prepared, never started. Idempotent.
     */
    public void prepare() {
        lifecycle.prepare();
    }

    /**
     * Graceful drain: stop claiming, release buffered claims, wait {@code drain-timeout} for running
     * steps, flush their outcomes, stop the sweeps, wake the {@code await} callers (they answer
     * {@code Busy} with their last snapshot), close the persistence unit. Idempotent.
     */
    public void stop() {
        lifecycle.stop();
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public <S> Inserted insert(Class<? extends Fsm<S>> fsm, S state) {
        return insert(fsm, state, InsertOptions.defaults());
    }

    @Override
    public <S> Inserted insert(Class<? extends Fsm<S>> fsm, S state, InsertOptions options) {
        Objects.requireNonNull(fsm, "fsm must not be null");
        return insert(new NewInstance(FsmNames.nameOf(fsm), state, options));
    }

    @Override
    public Inserted insert(NewInstance instance) {
        Objects.requireNonNull(instance, "instance must not be null");
        return s.inserter.insertAll(List.of(instance)).get(0);
    }

    @Override
    public List<Inserted> insertAll(List<NewInstance> instances) {
        return s.inserter.insertAll(instances);
    }

    @Override
    public SignalResult signal(SignalTarget target, String name, Object payload) {
        return s.signaller.signal(target, name, payload, null);
    }

    @Override
    public SignalResult signal(SignalTarget target, String name, Object payload, String dedupKey) {
        return s.signaller.signal(target, name, payload, dedupKey);
    }

    @Override
    public AwaitResult await(long id, Duration timeout) {
        return s.awaitBridge.await(id, timeout, AwaitUntil.SETTLED);
    }

    @Override
    public AwaitResult await(long id, Duration timeout, AwaitUntil until) {
        return s.awaitBridge.await(id, timeout, until);
    }

    @Override
    public Optional<InstanceSnapshot> find(long id) {
        return s.find(id);
    }

    @Override
    public Optional<InstanceSnapshot> find(String correlationKey) {
        Objects.requireNonNull(correlationKey, "correlationKey must not be null");
        SignalTarget.correlationKey(correlationKey);  // the same checks as every other correlation key
        return s.db.withEntityManager(em -> s.findSql.byCorrelationKey(em, correlationKey)).map(r -> Rows.snapshot(r, s.json));
    }

    /**
     * Registers a listener of every engine event ({@link EngineEvent}), called on
     * the engine's event dispatcher thread (docs/s.metrics.md, "Engine events").
     *
     * @param listener the listener
     */
    public void addListener(EngineEventListener listener) {
        s.bus.addListener(listener);
    }

    /**
     * Registers a listener of some engine event types: nothing is built for a type no listener wants.
     *
     * @param listener the listener
     * @param types    the event types it receives ({@code EngineEvent.class} for all)
     * @throws IllegalArgumentException when a type is not an engine event type
     */
    public void addListener(EngineEventListener listener, Collection<Class<? extends EngineEvent>> types) {
        s.bus.addListener(listener, types);
    }

    /**
     * Unregisters a listener; events already queued for it may still reach it.
     *
     * @param listener the listener
     */
    public void removeListener(EngineEventListener listener) {
        s.bus.removeListener(listener);
    }

    /** @return the counters */
    public EngineMetrics metrics() {
        return s.metrics;
    }

    /** @return the validated configuration */
    public EngineConfig config() {
        return s.config;
    }

    /** @return the registered FSMs */
    public FsmRegistry registry() {
        return s.registry;
    }

    /** @return the operator's API over this engine: search, inspect, summary; cancel, retry, reschedule, pause */
    public DurableOperations operations() {
        return s.operations;
    }

    /** @return the queues paused cluster-wide, as this node last read them (for s.gauges) */
    public Set<String> pausedQueues() {
        return s.pauses.paused();
    }

    /** @return what each of this node's queues is doing now (for s.gauges), one per configured queue */
    public List<QueueActivity> queueActivity() {
        return s.queueActivity();
    }

    // The parts below are reached through EngineInternals (the test kit's door), not by applications.

    List<Scheduler> schedulers() {
        return List.copyOf(s.schedulers);
    }

    EngineEventBus eventBus() {
        return s.bus;
    }

    PausedQueues pauses() {
        return s.pauses;
    }

    Reaper reaper() {
        return s.reaper;
    }

    /** @return how many {@code await} callers are parked on their future now (see {@link AwaitBridge#parked()}) */
    int parkedAwaiters() {
        return s.awaitBridge.parked();
    }

    int pokeListenerPid() {
        return s.postgresPoke == null ? -1 : s.postgresPoke.listenerPid();
    }

    DrainRunner drainRunner() {
        return s.drainRunner;
    }

    /** @return the cluster-wide queue gauges (their figures, and {@code runOnce} for tests) */
    public QueueGauges gauges() {
        return s.gauges;
    }

    /** @return the engine's readiness and liveness */
    public EngineHealth health() {
        return s.health;
    }

    Schedules schedules() {
        return s.schedules;
    }

    Gc gc() {
        return s.gc;
    }

    NodeBeacon beacon() {
        return s.beacon;
    }

    /** Builds an {@link Engine}; {@code dataSource}, {@code config}, {@code registry}, {@code timer} and {@code steps} are required. */
    public static final class Builder {
        private DataSource dataSource;
        private DataSource sessionDataSource;
        private EngineConfig config;
        private FsmRegistry registry;
        private ScheduledExecutorService timer;
        private ExecutorService steps;
        private ThreadFactory probeThreads;
        private InstantSource clock;
        private Json json;
        private Poke poke;
        private CallerTransactions callerTransactions;
        private EngineEvents events;
        private Supplier<String> principal;
        private Tracing tracing;
        private final List<EngineSetup.Listening> listeners = new ArrayList<>();

        private Builder() {
        }

        /** @param v the database @return this */
        public Builder dataSource(DataSource v) { this.dataSource = v; return this; }
        /**
         * @param v the same database with connections that keep their session (direct, or a
         *          session-mode pooler), for the Flyway migrations and the {@code postgres} poke's
         *          {@code LISTEN}, when {@link #dataSource} goes through a transaction-mode pooler;
         *          null (the default): {@link #dataSource}
         * @return this
         */
        public Builder sessionDataSource(DataSource v) { this.sessionDataSource = v; return this; }
        /** @param v the validated configuration @return this */
        public Builder config(EngineConfig v) { this.config = v; return this; }
        /** @param v the FSMs @return this */
        public Builder registry(FsmRegistry v) { this.registry = v; return this; }
        /** @param v runs claims, flushes, heartbeats and sweeps (a few threads) @return this */
        public Builder timer(ScheduledExecutorService v) { this.timer = v; return this; }
        /** @param v runs steps (as many threads as the queues' concurrency adds up to) @return this */
        public Builder steps(ExecutorService v) { this.steps = v; return this; }
        /** @param v makes the readiness probe's own thread (a container's managed thread factory); default: a daemon thread @return this */
        public Builder probeThreads(ThreadFactory v) { this.probeThreads = v; return this; }
        /** @param v the clock (default: the system's) @return this */
        public Builder clock(InstantSource v) { this.clock = v; return this; }
        /** @param v JSON-B (default: a new one) @return this */
        public Builder json(Json v) { this.json = v; return this; }
        /** @param v an extra poke transport beside the local one @return this */
        public Builder poke(Poke v) { this.poke = v; return this; }

        /** @param v how inserts and signals join a caller's transaction (default: never) @return this */
        public Builder callerTransactions(CallerTransactions v) { this.callerTransactions = v; return this; }
        /** @param v observers of steps, claims and flushes (metrics, CDI events) @return this */
        public Builder events(EngineEvents v) { this.events = v; return this; }

        /** @param v the name of the caller's principal, or null (default: none), for the operator's log and events @return this */
        public Builder principal(Supplier<String> v) { this.principal = v; return this; }

        /** @param v step spans and the stored trace context (default: none; docs/tracing.md) @return this */
        public Builder tracing(Tracing v) { this.tracing = v; return this; }

        /** @param v a listener of every engine event (more: call again) @return this */
        public Builder listener(EngineEventListener v) {
            listeners.add(new EngineSetup.Listening(Objects.requireNonNull(v, "listener"), EventKind.ALL));
            return this;
        }

        /**
         * @param v     a listener of some engine event types
         * @param types the types ({@code EngineEvent.class} for all)
         * @return this
         * @throws IllegalArgumentException when a type is not an engine event type
         */
        public Builder listener(EngineEventListener v, Collection<Class<? extends EngineEvent>> types) {
            long m = 0;
            for (Class<? extends EngineEvent> t : types) {
                m |= EventKind.maskOf(t);
            }
            listeners.add(new EngineSetup.Listening(Objects.requireNonNull(v, "listener"), m));
            return this;
        }

        /** @return the engine, not started */
        public Engine build() {
            return new Engine(new EngineSetup(dataSource, sessionDataSource, config, registry, timer, steps, probeThreads,
                    clock, json, poke, callerTransactions, events, principal, tracing, List.copyOf(listeners)));
        }
    }
}
