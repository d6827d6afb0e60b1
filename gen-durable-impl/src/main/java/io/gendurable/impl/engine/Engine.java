package io.gendurable.impl.engine;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.Fsm;
import io.gendurable.FsmNames;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceSnapshot;
import io.gendurable.NewInstance;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.impl.admission.BucketSql;
import io.gendurable.impl.admission.BucketSweeper;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.admission.LimitsSeeder;
import io.gendurable.impl.admission.PostgresLimiter;
import io.gendurable.impl.await.AwaitBridge;
import io.gendurable.impl.await.AwaitSql;
import io.gendurable.impl.await.AwaitWatcher;
import io.gendurable.impl.await.Awaiters;
import io.gendurable.impl.claim.ClaimSql;
import io.gendurable.impl.claim.Scheduler;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.CallerTransactions;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.EnginePersistence;
import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.flush.ChildrenSql;
import io.gendurable.impl.flush.FlushSql;
import io.gendurable.impl.flush.Flusher;
import io.gendurable.impl.flush.Transition;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.gc.Gc;
import io.gendurable.impl.gc.GcSql;
import io.gendurable.impl.gauges.GaugesSql;
import io.gendurable.impl.gauges.QueueGauges;
import io.gendurable.impl.health.EngineHealth;
import io.gendurable.impl.insert.InsertSql;
import io.gendurable.impl.insert.Inserter;
import io.gendurable.impl.insert.InstanceRows;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.lease.LeaseSql;
import io.gendurable.impl.lease.Reaper;
import io.gendurable.impl.poke.LocalPoke;
import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.poke.PostgresPoke;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.ValueSize;
import io.gendurable.impl.signals.SignalSql;
import io.gendurable.impl.signals.Signaller;
import io.gendurable.impl.step.InboxSql;
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
import java.util.concurrent.ScheduledExecutorService;

/**
 * The engine: plain Java, no container types. It receives a DataSource, its executors, a clock
 * and a validated configuration, and owns none of them except the persistence unit it builds.
 * {@link #start()} migrates (unless disabled) and starts the schedulers, flushers, reaper and GC;
 * {@link #stop()} drains. Both are idempotent.
 */
public final class Engine implements GenDurable, AutoCloseable {
    private static final Logger LOG = System.getLogger("io.gendurable.engine");

    private final EngineConfig config;
    private final DataSource dataSource;
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
    private final Awaiters awaiters = new Awaiters();
    private final AwaitWatcher awaitWatcher;
    private final AwaitBridge awaitBridge;
    private final Signaller signaller;
    private final PostgresPoke postgresPoke;
    private final Limiter limiter;
    private final LimitsSeeder limitsSeeder;
    private final EngineEvents events;
    private final DrainRunner drainRunner;
    private final Object lifecycle = new Object();
    private volatile boolean started;
    private boolean prepared;
    private volatile boolean stopped;
    private volatile long startedAt;

    private Engine(Builder b) {
        this.config = Objects.requireNonNull(b.config, "config");
        this.dataSource = Objects.requireNonNull(b.dataSource, "dataSource");
        this.registry = Objects.requireNonNull(b.registry, "registry");
        ScheduledExecutorService timer = Objects.requireNonNull(b.timer, "timer");
        ExecutorService steps = Objects.requireNonNull(b.steps, "steps");
        InstantSource clock = b.clock == null ? InstantSource.system() : b.clock;
        this.json = b.json == null ? new Json() : b.json;
        this.schema = new SchemaName(config.schema().name());
        this.db = new Db(EnginePersistence.create(dataSource, schema));
        this.postgresPoke = config.poke().transport() == EngineConfig.PokeTransport.POSTGRES
                ? new PostgresPoke(dataSource, schema.name(), config.poke().window(), localPoke::poke, this::pokeAllLocal, timer, steps, metrics)
                : null;
        Poke remote = postgresPoke != null ? postgresPoke : b.poke;
        Poke poke = remote == null ? localPoke : q -> {
            localPoke.poke(q);
            remote.poke(q);
        };
        ValueSize valueSize = new ValueSize(config.values().maxBytes());
        InstanceRows instanceRows = new InstanceRows(registry, json, config.limits(), valueSize);
        CallerTransactions callerTx = b.callerTransactions == null ? CallerTransactions.NONE : b.callerTransactions;
        this.events = b.events == null ? EngineEvents.NONE : b.events;
        this.inserter = new Inserter(instanceRows, db, new InsertSql(schema), poke, clock, callerTx);
        OutcomeEncoder encoder = new OutcomeEncoder(json, instanceRows);
        StepRunner runner = new StepRunner(registry, json, encoder, clock, metrics, config.node().id(), events);
        ClaimSql claimSql = new ClaimSql(schema);
        LeaseSql leaseSql = new LeaseSql(schema);
        FlushSql flushSql = new FlushSql(schema);
        Map<EngineConfig.FlusherConfig, Flusher> byConfig = new IdentityHashMap<>();
        Flusher.AfterCommit afterCommit = (committed, flushed) -> afterCommit(committed, flushed, poke);
        for (EngineConfig.FlusherConfig fc : config.flushers()) {
            Flusher f = new Flusher(fc, db, flushSql, timer, clock, metrics, afterCommit, events, config.lease().ttl());
            byConfig.put(fc, f);
            flushers.add(f);
        }
        this.limiter = new PostgresLimiter(config.limits(), db, new BucketSql(schema), clock, metrics);
        this.limitsSeeder = new LimitsSeeder(config.limits(), db, new BucketSql(schema));
        InboxSql inboxSql = new InboxSql(schema);
        runner.inline(new InlineContinuation(config.limits(), limiter, db, inboxSql, encoder, clock), config.lease().ttl());
        ChildrenSql childrenSql = new ChildrenSql(schema);
        config.node().queues().forEach((queue, concurrency) -> schedulers.add(new Scheduler(queue, concurrency, config, db,
                claimSql, leaseSql, inboxSql, childrenSql, limiter, events, runner, byConfig.get(config.flusherFor(queue)), timer, steps, clock, metrics)));
        AwaitSql awaitSql = new AwaitSql(schema);
        this.reaper = new Reaper(config.reaper(), db, leaseSql, poke, timer, clock, metrics);
        this.awaitWatcher = new AwaitWatcher(awaiters, db, awaitSql, timer, config.await().tick(), metrics);
        this.awaitBridge = new AwaitBridge(awaiters, this::find);
        this.signaller = new Signaller(json, db, new SignalSql(schema), poke, clock, metrics, callerTx, valueSize);
        this.gc = new Gc(config.gc(), db, new GcSql(schema),
                new BucketSweeper(config.limits(), db, new BucketSql(schema), clock, metrics), timer, clock, metrics);
        this.gauges = new QueueGauges(config, db, new GaugesSql(schema), timer, clock, metrics);
        this.health = new EngineHealth(config, dataSource, schema, steps, metrics.loops,
                () -> new EngineHealth.Lifecycle(started, stopped, startedAt));
        this.drainRunner = new DrainRunner(config, registry, json, db, schema, instanceRows, limiter, events,
                afterCommit, reaper, clock, metrics, () -> started);
    }

    private void afterCommit(List<Transition> committed, FlushSql.Flushed flushed, Poke poke) {
        Map<Long, String> statuses = new HashMap<>(committed.size() * 2);
        for (Transition r : committed) {
            statuses.put(r.id(), r.status().dbName());
        }
        flushed.rewoken().keySet().forEach(id -> statuses.put(id, "runnable"));
        awaiters.observed(statuses);
        Set<String> queues = new HashSet<>(flushed.rewoken().values());
        queues.addAll(flushed.childQueues());
        queues.forEach(poke::poke);
    }

    private void pokeAllLocal() {
        schedulers.forEach(Scheduler::poke);
    }

    /** @return a builder */
    public static Builder builder() {
        return new Builder();
    }

    /** Migrates (unless {@code migrate-at-start=false}) and starts every background service. Idempotent. */
    public void start() {
        synchronized (lifecycle) {
            if (started) {
                return;
            }
            if (stopped) {
                throw new IllegalStateException("a stopped engine cannot start again; build a new one");
            }
            prepare();
            for (Scheduler s : schedulers) {
                localPoke.register(s);
                s.start();
            }
            if (config.reaper().enabled()) {
                reaper.start();
            }
            if (config.gc().enabled()) {
                gc.start();
            }
            awaitWatcher.start();
            if (postgresPoke != null) {
                postgresPoke.start();
            }
            if (config.gauges().enabled()) {
                gauges.start();
            }
            startedAt = System.nanoTime();
            started = true;
        }
    }

    /**
     * What {@link #start()} does first, and only that: migrates (unless {@code migrate-at-start=false})
     * and seeds the limits, starting no background service. An engine driven only through its
     * {@link #drainRunner()} (users' tests) is prepared, never started. Idempotent.
     */
    public void prepare() {
        synchronized (lifecycle) {
            if (prepared) {
                return;
            }
            if (stopped) {
                throw new IllegalStateException("a stopped engine cannot start again; build a new one");
            }
            LOG.log(Level.INFO, "gen-durable starting: " + config.describe() + " fsms=" + registry.describe());
            if (config.schema().migrateAtStart()) {
                int applied = Migrations.migrate(dataSource, schema);
                LOG.log(Level.INFO, "gen-durable schema " + schema.name() + ": " + applied + " migrations applied");
            }
            limitsSeeder.seed();
            prepared = true;
        }
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
            awaitWatcher.stop();
            awaitBridge.close();  // callers answer Busy with their last snapshot, never a closed-factory error
            db.close();
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
        return db.withEntityManager(em -> findSql.byId(em, id)).map(r -> Snapshots.of(r, json));
    }

    @Override
    public Optional<InstanceSnapshot> find(String correlationKey) {
        Objects.requireNonNull(correlationKey, "correlationKey must not be null");
        SignalTarget.correlationKey(correlationKey);  // the same checks as every other correlation key
        return db.withEntityManager(em -> findSql.byCorrelationKey(em, correlationKey)).map(r -> Snapshots.of(r, json));
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

    /** @return the schedulers, one per configured queue */
    public List<Scheduler> schedulers() {
        return List.copyOf(schedulers);
    }

    /** @return the reaper (its {@code runOnce} is public for tests and tools) */
    public Reaper reaper() {
        return reaper;
    }

    /** @return the backend pid of the postgres poke listener, or -1 (for tests) */
    public int pokeListenerPid() {
        return postgresPoke == null ? -1 : postgresPoke.listenerPid();
    }

    /** @return the synchronous pick/run seam of {@code io.gendurable.testing} (for a prepared, unstarted engine) */
    public DrainRunner drainRunner() {
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

    /** @return the GC */
    public Gc gc() {
        return gc;
    }

    /** Builds an {@link Engine}; {@code dataSource}, {@code config}, {@code registry}, {@code timer} and {@code steps} are required. */
    public static final class Builder {
        private DataSource dataSource;
        private EngineConfig config;
        private FsmRegistry registry;
        private ScheduledExecutorService timer;
        private ExecutorService steps;
        private InstantSource clock;
        private Json json;
        private Poke poke;
        private CallerTransactions callerTransactions;
        private EngineEvents events;

        private Builder() {
        }

        /** @param v the database @return this */
        public Builder dataSource(DataSource v) { this.dataSource = v; return this; }
        /** @param v the validated configuration @return this */
        public Builder config(EngineConfig v) { this.config = v; return this; }
        /** @param v the FSMs @return this */
        public Builder registry(FsmRegistry v) { this.registry = v; return this; }
        /** @param v runs fills, flushes, heartbeats and sweeps (a few threads) @return this */
        public Builder timer(ScheduledExecutorService v) { this.timer = v; return this; }
        /** @param v runs steps (as many threads as the queues' concurrency adds up to) @return this */
        public Builder steps(ExecutorService v) { this.steps = v; return this; }
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

        /** @return the engine, not started */
        public Engine build() {
            return new Engine(this);
        }
    }
}
