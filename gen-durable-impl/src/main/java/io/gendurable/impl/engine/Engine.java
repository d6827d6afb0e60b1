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
import io.gendurable.impl.ops.Rows;
import io.gendurable.impl.admission.BucketSweeper;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.admission.LimitsSeeder;
import io.gendurable.impl.admission.PostgresLimiter;
import io.gendurable.impl.await.AwaitBridge;
import io.gendurable.impl.await.AwaitWatcher;
import io.gendurable.impl.await.Awaiters;
import io.gendurable.impl.claim.PausedQueues;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.claim.ReservedSlot;
import io.gendurable.impl.claim.Scheduler;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.control.Controls;
import io.gendurable.impl.ops.Queries;
import io.gendurable.impl.db.CallerTransactions;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.EnginePersistence;
import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.flush.FlushSql;
import io.gendurable.impl.flush.Flusher;
import io.gendurable.impl.flush.Transition;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.gc.Gc;
import io.gendurable.impl.schedule.Schedules;
import io.gendurable.impl.gauges.GaugesSql;
import io.gendurable.impl.gauges.QueueGauges;
import io.gendurable.impl.health.EngineHealth;
import io.gendurable.impl.insert.Inserter;
import io.gendurable.impl.insert.InstanceRows;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.keys.KeyBlocking;
import io.gendurable.impl.claim.QueueServices;
import io.gendurable.impl.lease.Reaper;
import io.gendurable.impl.nodes.NodeActivity;
import io.gendurable.impl.nodes.NodeBeacon;
import io.gendurable.impl.nodes.NodeDirectory;
import io.gendurable.impl.poke.LocalPoke;
import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.poke.PostgresPoke;
import io.gendurable.impl.redis.RedisBackends;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.events.EngineEvent;
import io.gendurable.events.EngineEventListener;
import io.gendurable.impl.runtime.EngineEventBus;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.QueueActivity;
import io.gendurable.impl.runtime.ValueSize;
import io.gendurable.impl.signals.Signaller;
import io.gendurable.impl.step.InlineContinuation;
import io.gendurable.impl.step.OutcomeEncoder;
import io.gendurable.impl.step.StepRunner;

import javax.sql.DataSource;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The engine: plain Java, no container types. It receives a DataSource, its executors, a clock
 * and a validated configuration, and owns none of them except the persistence unit it builds.
 * {@link #start()} migrates (unless disabled) and starts the schedulers, flushers, reaper and GC;
 * {@link #stop()} drains. Both are idempotent.
 */
public final class Engine implements GenDurable, AutoCloseable {
    private static final Logger LOG = System.getLogger("io.gendurable.engine");
    /** How long the event listeners may take, at stop, to receive the events already queued. */
    private static final java.time.Duration EVENTS_CLOSE_WAIT = java.time.Duration.ofSeconds(2);

    private final EngineConfig config;
    private final DataSource dataSource;
    /** Where what needs a session of its own runs: the migrations and the poke's listener (default: {@link #dataSource}). */
    private final DataSource sessionDataSource;
    private final SchemaName schema;
    private final FsmRegistry registry;
    private final Json json;
    private final Db db;
    private final EngineMetrics metrics = new EngineMetrics();
    private final LocalPoke localPoke = new LocalPoke();
    private final Inserter inserter;
    private final FindSql findSql = new FindSql();
    private final List<Scheduler> schedulers = new ArrayList<>();
    private final List<Flusher> flushers = new ArrayList<>();
    private final Reaper reaper;
    private final Gc gc;
    private final QueueGauges gauges;
    private final EngineHealth health;
    // the readiness probe's own thread (shut down at stop)
    private final ExecutorService probes;
    private final Awaiters awaiters = new Awaiters();
    private final AwaitWatcher awaitWatcher;
    private final AwaitBridge awaitBridge;
    private final Signaller signaller;
    private final PostgresPoke postgresPoke;
    /** Null unless the configuration names Redis (the limiter or the poke): its client is optional. */
    private final RedisBackends redis;
    private final Limiter limiter;
    private final LimitsSeeder limitsSeeder;
    private final EngineEvents events;
    private final EngineEventBus bus;
    private final DrainRunner drainRunner;
    private final PausedQueues pauses;
    // the operator's actions' statements; set once in the constructor (the reaper and the releases
    // call it through lambdas that read it then)
    private Controls controls;
    private final Operations operations;
    private final Schedules schedules;
    private final NodeActivity activity;
    private final NodeBeacon beacon;
    private final Object lifecycle = new Object();
    private volatile boolean started;
    private boolean prepared;
    private volatile boolean stopped;
    private volatile long startedAt;

    private Engine(Builder b) {
        this.config = Objects.requireNonNull(b.config, "config");
        this.dataSource = Objects.requireNonNull(b.dataSource, "dataSource");
        this.sessionDataSource = b.sessionDataSource != null ? b.sessionDataSource : dataSource;
        this.registry = Objects.requireNonNull(b.registry, "registry");
        ScheduledExecutorService timer = Objects.requireNonNull(b.timer, "timer");
        ExecutorService steps = Objects.requireNonNull(b.steps, "steps");
        InstantSource clock = b.clock == null ? InstantSource.system() : b.clock;
        this.json = b.json == null ? new Json() : b.json;
        this.schema = new SchemaName(config.schema().name());
        this.db = new Db(EnginePersistence.create(dataSource, schema), dataSource);
        this.activity = new NodeActivity(clock);
        this.bus = new EngineEventBus(metrics, b.probeThreads);
        b.listeners.forEach(l -> bus.add(l.listener(), l.kinds()));
        this.events = EngineEvents.both(activity, b.events == null ? EngineEvents.NONE : b.events);
        EngineContext ctx = new EngineContext(config, registry, db, new Statements(schema), clock, metrics, events, json,
                timer, steps, b.tracing == null ? io.gendurable.impl.trace.Tracing.NONE : b.tracing, bus);
        this.postgresPoke = config.poke().transport() == EngineConfig.PokeTransport.POSTGRES
                ? new PostgresPoke(ctx, dataSource, sessionDataSource, localPoke::poke, this::pokeAllLocal)
                : null;
        this.redis = config.usesRedis() ? RedisBackends.open(ctx, localPoke::poke, this::pokeAllLocal) : null;
        Poke remote = postgresPoke != null ? postgresPoke
                : redis != null && redis.poke() != null ? redis.poke() : b.poke;
        Poke poke = remote == null ? localPoke : q -> {
            localPoke.poke(q);
            remote.poke(q);
        };
        InstanceRows instanceRows = new InstanceRows(registry, json, config.limits(),
                new ValueSize(config.values().maxBytes()), ctx.tracing());
        CallerTransactions callerTx = b.callerTransactions == null ? CallerTransactions.NONE : b.callerTransactions;
        Map<String, Scheduler> byQueue = new java.util.concurrent.ConcurrentHashMap<>();
        // start-at-insert: a free slot of this node's scheduler of the queue, for a row claimed by its insert or wake-up
        java.util.function.Function<String, ReservedSlot> reserveSlot = queue -> {
            Scheduler s = byQueue.get(queue);
            return s == null ? null : s.reserve();
        };
        this.inserter = new Inserter(ctx, instanceRows, poke, callerTx, reserveSlot::apply);
        this.limiter = redis != null && redis.limiter() != null ? redis.limiter() : new PostgresLimiter(ctx);
        this.limitsSeeder = new LimitsSeeder(ctx);
        OutcomeEncoder encoder = new OutcomeEncoder(json, instanceRows);
        StepRunner runner = new StepRunner(ctx, encoder, new InlineContinuation(ctx, limiter, encoder));
        Map<EngineConfig.FlusherConfig, Flusher> byConfig = new IdentityHashMap<>();
        Flusher.AfterCommit afterCommit = (committed, flushed) -> afterCommit(committed, flushed, poke);
        for (EngineConfig.FlusherConfig fc : config.flushers()) {
            Flusher f = new Flusher(ctx, fc, afterCommit);
            byConfig.put(fc, f);
            flushers.add(f);
        }
        this.pauses = new PausedQueues(ctx, this::pokeAllLocal);
        KeyBlocking keyBlocking = new KeyBlocking(ctx, poke);
        QueueServices services = new QueueServices(limiter, pauses, keyBlocking, ids -> controls.finishCancels(ids));
        for (String queue : config.node().queues().keySet()) {
            Scheduler s = new Scheduler(ctx, queue, runner, byConfig.get(config.flusherFor(queue)), services);
            schedulers.add(s);
            byQueue.put(queue, s);
        }
        this.reaper = new Reaper(ctx, poke, keyBlocking, ids -> controls.finishCancels(ids));
        this.awaitWatcher = new AwaitWatcher(ctx, awaiters);
        this.awaitBridge = new AwaitBridge(awaiters, this::find);
        this.signaller = new Signaller(ctx, poke, callerTx, reserveSlot::apply);
        this.gc = new Gc(ctx, new BucketSweeper(ctx));
        this.drainRunner = new DrainRunner(ctx, encoder, limiter, afterCommit, reaper, () -> started);
        this.schedules = new Schedules(ctx, inserter, poke);
        this.controls = new Controls(ctx, new Controls.Committed() {
            @Override
            public void changed(Map<Long, String> statuses, Set<String> queues) {
                awaiters.observed(statuses);
                queues.forEach(poke::poke);
            }

            @Override
            public void cancelRequested(List<Long> ids) {
                // the steps running here stop now; other nodes' at their next heartbeat
                schedulers.forEach(s -> ids.forEach(s::interrupt));
            }

            @Override
            public void pausesChanged() {
                Loops.guarded(LOG, "paused-queues refresh", metrics, pauses::refresh);
            }
        });
        this.operations = new Operations(ctx, new Operations.Services(controls, new Queries(db, json, schema, clock), schedules,
                new NodeDirectory(ctx)), this::find, b.principal == null ? () -> null : b.principal);
        this.beacon = new NodeBeacon(ctx, activity, this::queueActivity);
        this.gauges = new QueueGauges(config, db, new GaugesSql(schema), timer, clock, metrics);
        // the readiness probe's own thread (created at the first probe): a step executor busy with
        // long steps never delays it, so a healthy node under load does not answer DOWN
        this.probes = Executors.newSingleThreadExecutor(b.probeThreads != null ? b.probeThreads : r -> {
            Thread t = new Thread(r, "gendurable-health-probe");
            t.setDaemon(true);
            return t;
        });
        this.health = new EngineHealth(config, dataSource, schema, probes, metrics.loops,
                () -> new EngineHealth.Lifecycle(started, stopped, startedAt));
        this.health.poisonedSchedules(() -> schedules.firer().poisoned());
        this.health.maintenanceGaps(() -> beacon.maintenanceGaps());
        this.health.unservedQueues(this::unservedQueues);
    }

    /**
     * @return each queue that a registered FSM defaults to ({@code @DurableFsm(queue = …)}) and this
     *         node does not serve ({@code gendurable.queues}) → those FSMs' names, sorted: their
     *         instances run only on a node that serves it
     */
    public Map<String, List<String>> unservedQueues() {
        Map<String, List<String>> out = new java.util.TreeMap<>();
        for (io.gendurable.impl.fsm.FsmDefinition d : registry.all()) {
            if (!config.node().queues().containsKey(d.queue())) {
                List<String> names = out.computeIfAbsent(d.queue(), q -> new ArrayList<>());
                if (!names.contains(d.name())) {
                    names.add(d.name());
                }
            }
        }
        out.values().forEach(java.util.Collections::sort);
        return out;
    }

    private void afterCommit(List<Transition> committed, FlushSql.Flushed flushed, Poke poke) {
        creditOutOfBand(committed);
        Map<Long, String> statuses = new HashMap<>(committed.size() * 2);
        for (Transition r : committed) {
            statuses.put(r.id(), r.status().dbName());
        }
        flushed.cancelled().forEach(claim -> statuses.put(claim.id(), "cancelled"));
        flushed.rewoken().keySet().forEach(id -> statuses.put(id, "runnable"));
        awaiters.observed(statuses);
        Set<String> queues = new HashSet<>(flushed.rewoken().values());
        queues.addAll(flushed.readyQueues());
        queues.forEach(poke::poke);
    }

    /**
     * Slots kept outside PostgreSQL (Redis) go back once their outcome committed, before the pokes
     * (a poked scheduler finds them free); a failure leaks them until their lease lapses.
     */
    private void creditOutOfBand(List<Transition> committed) {
        List<Limiter.Slot> slots = new ArrayList<>();
        for (Transition r : committed) {
            if (r.slot() != null && !r.slot().inBand()) {
                slots.add(r.slot());
            }
        }
        if (slots.isEmpty()) {
            return;
        }
        try {
            limiter.credit(slots);
        } catch (RuntimeException e) {
            metrics.loopErrors.increment();
            LOG.log(Level.WARNING, "gen-durable: could not give back " + slots.size()
                    + " gate slots kept outside PostgreSQL; they lapse with their lease: " + e);
        }
    }

    /** Wakes every local scheduler, busy or not (a pause changed, a poke listener reconnected). */
    private void pokeAllLocal() {
        schedulers.forEach(Scheduler::wake);
    }

    /** @return a builder */
    public static Builder builder() {
        return new Builder();
    }

    /** Migrates (unless {@code migrate-at-start=false}) and starts every background service. Idempotent. */
    public void start() {
        synchronized (lifecycle) {
            if (!mayStart(started)) {
                return;
            }
            prepare();
            unservedQueues().forEach((queue, fsms) -> LOG.log(Level.WARNING, "gen-durable: FSMs " + fsms
                    + " default to queue '" + queue + "', which this node does not serve (gendurable.queues = "
                    + config.node().queues().keySet() + "): their instances run only on a node that serves it"));
            pauses.start();  // before the schedulers: a paused queue's prefetch is never dispatched
            for (Scheduler s : schedulers) {
                localPoke.register(s);
                s.start();
            }
            if (config.reaper().enabled()) {
                reaper.start();
            } else {
                LOG.log(Level.WARNING, "gen-durable: this node runs no reaper (gendurable.reaper.enabled=false): lapsed"
                        + " claims are taken back only by nodes that run one (readiness names it when no live node does)");
            }
            if (config.gc().enabled()) {
                gc.start();
            } else {
                LOG.log(Level.WARNING, "gen-durable: this node runs no GC (gendurable.gc.enabled=false): ended instances"
                        + " are deleted only by nodes that run one (readiness names it when no live node does)");
            }
            awaitWatcher.start();
            if (postgresPoke != null) {
                postgresPoke.start();
            }
            if (redis != null) {
                redis.start();
            }
            if (config.gauges().enabled()) {
                gauges.start();
            }
            if (config.schedules().enabled()) {
                schedules.firer().start();
            }
            beacon.start();
            startedAt = System.nanoTime();
            started = true;
        }
    }

    /**
     * What {@link #start()} does first, and only that: migrates (unless {@code migrate-at-start=false})
     * and seeds the limits, starting no background service. An engine driven only through its
     * {@link DrainRunner} (users' tests, through {@code io.gendurable.testing}) is prepared, never started. Idempotent.
     */
    public void prepare() {
        synchronized (lifecycle) {
            if (!mayStart(prepared)) {
                return;
            }
            LOG.log(Level.INFO, "gen-durable starting: " + config.describe() + " fsms=" + registry.describe());
            if (config.schema().migrateAtStart()) {
                int applied = Migrations.migrate(sessionDataSource, schema);
                LOG.log(Level.INFO, "gen-durable schema " + schema.name() + ": " + applied + " migrations applied");
            }
            limitsSeeder.seed();
            schedules.seed();
            prepared = true;
        }
    }

    /** @return whether a start (or prepare) has work to do: false when {@code done} already; never after a stop */
    private boolean mayStart(boolean done) {
        if (done) {
            return false;
        }
        if (stopped) {
            throw new IllegalStateException("a stopped engine cannot start again; build a new one");
        }
        return true;
    }

    /**
     * Graceful drain: stop picking, release buffered claims, wait {@code drain-timeout} for running
     * steps, flush their outcomes, stop the sweeps, wake the {@code await} callers (they answer
     * {@code Busy} with their last snapshot), close the persistence unit. Idempotent.
     */
    public void stop() {
        synchronized (lifecycle) {
            if (stopped) {
                return;
            }
            stopped = true;
            reaper.stop();
            gc.stop();
            gauges.stop();
            schedules.firer().stop();
            if (postgresPoke != null) {
                postgresPoke.stop();
            }
            long deadline = System.nanoTime() + config.drain().timeout().toNanos();
            for (Scheduler s : schedulers) {
                localPoke.unregister(s);
                s.beginStop(deadline);
            }
            for (Scheduler s : schedulers) {
                s.finishStop(deadline);
            }
            for (Flusher f : flushers) {
                f.stop(config.drain().timeout());
            }
            pauses.stop();
            awaitWatcher.stop();
            if (started) {
                beacon.stop();  // deletes this node's row: it is gone at once, not after its retention
            }
            awaitBridge.close();  // callers answer Busy with their last snapshot, never a closed-factory error
            if (redis != null) {
                redis.stop();
            }
            db.close();
            probes.shutdownNow();
            bus.close(EVENTS_CLOSE_WAIT);
            LOG.log(Level.INFO, "gen-durable stopped");
        }
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
        return inserter.insertAll(List.of(instance)).get(0);
    }

    @Override
    public List<Inserted> insertAll(List<NewInstance> instances) {
        return inserter.insertAll(instances);
    }

    @Override
    public SignalResult signal(SignalTarget target, String name, Object payload) {
        return signaller.signal(target, name, payload, null);
    }

    @Override
    public SignalResult signal(SignalTarget target, String name, Object payload, String dedupKey) {
        return signaller.signal(target, name, payload, dedupKey);
    }

    @Override
    public AwaitResult await(long id, Duration timeout) {
        return awaitBridge.await(id, timeout, AwaitUntil.SETTLED);
    }

    @Override
    public AwaitResult await(long id, Duration timeout, AwaitUntil until) {
        return awaitBridge.await(id, timeout, until);
    }

    @Override
    public Optional<InstanceSnapshot> find(long id) {
        return db.withEntityManager(em -> findSql.byId(em, id)).map(r -> Rows.snapshot(r, json));
    }

    @Override
    public Optional<InstanceSnapshot> find(String correlationKey) {
        Objects.requireNonNull(correlationKey, "correlationKey must not be null");
        SignalTarget.correlationKey(correlationKey);  // the same checks as every other correlation key
        return db.withEntityManager(em -> findSql.byCorrelationKey(em, correlationKey)).map(r -> Rows.snapshot(r, json));
    }

    /**
     * Registers a listener of every engine event ({@link io.gendurable.events.EngineEvent}), called on
     * the engine's event dispatcher thread (docs/metrics.md, "Engine events").
     *
     * @param listener the listener
     */
    public void addListener(EngineEventListener listener) {
        bus.addListener(listener);
    }

    /**
     * Registers a listener of some engine event types: nothing is built for a type no listener wants.
     *
     * @param listener the listener
     * @param types    the event types it receives ({@code EngineEvent.class} for all)
     * @throws IllegalArgumentException when a type is not an engine event type
     */
    public void addListener(EngineEventListener listener, java.util.Collection<Class<? extends EngineEvent>> types) {
        bus.addListener(listener, types);
    }

    /**
     * Unregisters a listener; events already queued for it may still reach it.
     *
     * @param listener the listener
     */
    public void removeListener(EngineEventListener listener) {
        bus.removeListener(listener);
    }

    /** @return the counters */
    public EngineMetrics metrics() {
        return metrics;
    }

    /** @return the validated configuration */
    public EngineConfig config() {
        return config;
    }

    /** @return the registered FSMs */
    public FsmRegistry registry() {
        return registry;
    }

    /** @return the operator's API over this engine: search, inspect, summary; cancel, retry, reschedule, pause */
    public DurableOperations operations() {
        return operations;
    }

    /** @return the queues paused cluster-wide, as this node last read them (for gauges) */
    public Set<String> pausedQueues() {
        return pauses.paused();
    }

    /** @return what each of this node's queues is doing now (for gauges), one per configured queue */
    public List<QueueActivity> queueActivity() {
        return List.copyOf(schedulers);
    }

    // The parts below are reached through EngineInternals (the test kit's door), not by applications.

    List<Scheduler> schedulers() {
        return List.copyOf(schedulers);
    }

    EngineEventBus eventBus() {
        return bus;
    }

    io.gendurable.impl.claim.PausedQueues pauses() {
        return pauses;
    }

    Reaper reaper() {
        return reaper;
    }

    /** @return how many {@code await} callers are parked on their future now (see {@link AwaitBridge#parked()}) */
    int parkedAwaiters() {
        return awaitBridge.parked();
    }

    int pokeListenerPid() {
        return postgresPoke == null ? -1 : postgresPoke.listenerPid();
    }

    DrainRunner drainRunner() {
        return drainRunner;
    }

    /** @return the cluster-wide queue gauges (their figures, and {@code runOnce} for tests) */
    public QueueGauges gauges() {
        return gauges;
    }

    /** @return the engine's readiness and liveness */
    public EngineHealth health() {
        return health;
    }

    Schedules schedules() {
        return schedules;
    }

    Gc gc() {
        return gc;
    }

    NodeBeacon beacon() {
        return beacon;
    }

    /** A listener given to the builder, with the bits of the event kinds it receives. */
    private record Listening(EngineEventListener listener, long kinds) {
    }

    /** Builds an {@link Engine}; {@code dataSource}, {@code config}, {@code registry}, {@code timer} and {@code steps} are required. */
    public static final class Builder {
        private DataSource dataSource;
        private DataSource sessionDataSource;
        private EngineConfig config;
        private FsmRegistry registry;
        private ScheduledExecutorService timer;
        private ExecutorService steps;
        private java.util.concurrent.ThreadFactory probeThreads;
        private InstantSource clock;
        private Json json;
        private Poke poke;
        private CallerTransactions callerTransactions;
        private EngineEvents events;
        private java.util.function.Supplier<String> principal;
        private io.gendurable.impl.trace.Tracing tracing;
        private final List<Listening> listeners = new ArrayList<>();

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
        /** @param v runs fills, flushes, heartbeats and sweeps (a few threads) @return this */
        public Builder timer(ScheduledExecutorService v) { this.timer = v; return this; }
        /** @param v runs steps (as many threads as the queues' concurrency adds up to) @return this */
        public Builder steps(ExecutorService v) { this.steps = v; return this; }
        /** @param v makes the readiness probe's own thread (a container's managed thread factory); default: a daemon thread @return this */
        public Builder probeThreads(java.util.concurrent.ThreadFactory v) { this.probeThreads = v; return this; }
        /** @param v the clock (default: the system's) @return this */
        public Builder clock(InstantSource v) { this.clock = v; return this; }
        /** @param v JSON-B (default: a new one) @return this */
        public Builder json(Json v) { this.json = v; return this; }
        /** @param v an extra poke transport beside the local one @return this */
        public Builder poke(Poke v) { this.poke = v; return this; }

        /** @param v how inserts and signals join a caller's transaction (default: never) @return this */
        public Builder callerTransactions(CallerTransactions v) { this.callerTransactions = v; return this; }
        /** @param v observers of steps, picks and flushes (metrics, CDI events) @return this */
        public Builder events(EngineEvents v) { this.events = v; return this; }

        /** @param v the name of the caller's principal, or null (default: none), for the operator's log and events @return this */
        public Builder principal(java.util.function.Supplier<String> v) { this.principal = v; return this; }

        /** @param v step spans and the stored trace context (default: none; docs/tracing.md) @return this */
        public Builder tracing(io.gendurable.impl.trace.Tracing v) { this.tracing = v; return this; }

        /** @param v a listener of every engine event (more: call again) @return this */
        public Builder listener(EngineEventListener v) {
            listeners.add(new Listening(Objects.requireNonNull(v, "listener"), io.gendurable.impl.runtime.EventKind.ALL));
            return this;
        }

        /**
         * @param v     a listener of some engine event types
         * @param types the types ({@code EngineEvent.class} for all)
         * @return this
         * @throws IllegalArgumentException when a type is not an engine event type
         */
        public Builder listener(EngineEventListener v, java.util.Collection<Class<? extends EngineEvent>> types) {
            long m = 0;
            for (Class<? extends EngineEvent> t : types) {
                m |= io.gendurable.impl.runtime.EventKind.maskOf(t);
            }
            listeners.add(new Listening(Objects.requireNonNull(v, "listener"), m));
            return this;
        }

        /** @return the engine, not started */
        public Engine build() {
            return new Engine(this);
        }
    }
}
