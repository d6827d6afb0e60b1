package io.gendurable.impl.engine;

import io.gendurable.InstanceSnapshot;
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
import io.gendurable.impl.claim.Scheduler;
import io.gendurable.impl.claim.ReservedSlot;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.PokeTransport;
import io.gendurable.impl.control.Controls;
import io.gendurable.impl.ops.Queries;
import io.gendurable.impl.db.CallerTransactions;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.EnginePersistence;
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

import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.trace.Tracing;
import java.util.Collections;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * An engine's parts, wired once from its {@link EngineSetup}: the composition root. {@link Engine}
 * answers the API through them and {@link EngineLifecycle} starts and stops them; the glue between
 * parts (what follows a flush's commit, waking every scheduler, a snapshot read) is here.
 * See docs/internals.md ("Where things are").
 */
final class EngineServices {
    private static final Logger LOG = System.getLogger("io.gendurable.engine");

    final EngineConfig config;
    final DataSource dataSource;
    /** Where what needs a session of its own runs: the migrations and the poke's listener (default: {@link #dataSource}). */
    final DataSource sessionDataSource;
    final SchemaName schema;
    final FsmRegistry registry;
    final Json json;
    final Db db;
    final EngineMetrics metrics = new EngineMetrics();
    final LocalPoke localPoke = new LocalPoke();
    final Inserter inserter;
    final FindSql findSql = new FindSql();
    final List<Scheduler> schedulers = new ArrayList<>();
    final List<Flusher> flushers = new ArrayList<>();
    final Reaper reaper;
    final Gc gc;
    final QueueGauges gauges;
    final EngineHealth health;
    // the readiness probe's own thread (shut down at stop)
    final ExecutorService probes;
    final Awaiters awaiters = new Awaiters();
    final AwaitWatcher awaitWatcher;
    final AwaitBridge awaitBridge;
    final Signaller signaller;
    final PostgresPoke postgresPoke;
    /** Null unless the configuration names Redis (the limiter or the poke): its client is optional. */
    final RedisBackends redis;
    final Limiter limiter;
    final LimitsSeeder limitsSeeder;
    final EngineEvents events;
    final EngineEventBus bus;
    final DrainRunner drainRunner;
    final PausedQueues pauses;
    // the operator's actions' statements; set once in the constructor (the reaper and the releases
    // call it through lambdas that read it then)
    private Controls controls;
    final Operations operations;
    final Schedules schedules;
    final NodeActivity activity;
    final NodeBeacon beacon;
    // the lifecycle's flags (set by EngineLifecycle), read by the parts wired here
    volatile boolean started;
    volatile boolean stopped;
    volatile long startedAt;

    EngineServices(EngineSetup b) {
        this.config = Objects.requireNonNull(b.config(), "config");
        this.dataSource = Objects.requireNonNull(b.dataSource(), "dataSource");
        this.sessionDataSource = b.sessionDataSource() != null ? b.sessionDataSource() : dataSource;
        this.registry = Objects.requireNonNull(b.registry(), "registry");
        ScheduledExecutorService timer = Objects.requireNonNull(b.timer(), "timer");
        ExecutorService steps = Objects.requireNonNull(b.steps(), "steps");
        InstantSource clock = b.clock() == null ? InstantSource.system() : b.clock();
        this.json = b.json() == null ? new Json() : b.json();
        this.schema = new SchemaName(config.schema().name());
        this.db = new Db(EnginePersistence.create(dataSource, schema), dataSource);
        this.activity = new NodeActivity(clock);
        this.bus = new EngineEventBus(metrics, b.probeThreads());
        b.listeners().forEach(l -> bus.add(l.listener(), l.kinds()));
        this.events = EngineEvents.both(activity, b.events() == null ? EngineEvents.NONE : b.events());
        EngineContext ctx = new EngineContext(config, registry, db, new Statements(schema), clock, metrics, events, json,
                timer, steps, b.tracing() == null ? Tracing.NONE : b.tracing(), bus);
        this.postgresPoke = config.poke().transport() == PokeTransport.POSTGRES
                ? new PostgresPoke(ctx, dataSource, sessionDataSource, localPoke::poke, this::pokeAllLocal)
                : null;
        this.redis = config.usesRedis() ? RedisBackends.open(ctx, localPoke::poke, this::pokeAllLocal) : null;
        Poke remote = postgresPoke != null ? postgresPoke
                : redis != null && redis.poke() != null ? redis.poke() : b.poke();
        Poke poke = remote == null ? localPoke : q -> {
            localPoke.poke(q);
            remote.poke(q);
        };
        InstanceRows instanceRows = new InstanceRows(registry, json, config.limits(),
                new ValueSize(config.values().maxBytes()), ctx.tracing());
        CallerTransactions callerTx = b.callerTransactions() == null ? CallerTransactions.NONE : b.callerTransactions();
        Map<String, Scheduler> byQueue = new ConcurrentHashMap<>();
        // start-at-insert: a free slot of this node's scheduler of the queue, for a row claimed by its insert or wake-up
        Function<String, ReservedSlot> reserveSlot = queue -> {
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
                new NodeDirectory(ctx)), this::find, b.principal() == null ? () -> null : b.principal());
        this.beacon = new NodeBeacon(ctx, activity, this::queueActivity);
        this.gauges = new QueueGauges(config, db, new GaugesSql(schema), timer, clock, metrics);
        // the readiness probe's own thread (created at the first probe): a step executor busy with
        // long steps never delays it, so a healthy node under load does not answer DOWN
        this.probes = Executors.newSingleThreadExecutor(b.probeThreads() != null ? b.probeThreads() : r -> {
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
    Map<String, List<String>> unservedQueues() {
        Map<String, List<String>> out = new TreeMap<>();
        for (FsmDefinition d : registry.all()) {
            if (!config.node().queues().containsKey(d.queue())) {
                List<String> names = out.computeIfAbsent(d.queue(), q -> new ArrayList<>());
                if (!names.contains(d.name())) {
                    names.add(d.name());
                }
            }
        }
        out.values().forEach(Collections::sort);
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
    void pokeAllLocal() {
        schedulers.forEach(Scheduler::wake);
    }


    /** @param id a row @return its snapshot, if the row exists */
    Optional<InstanceSnapshot> find(long id) {
        return db.withEntityManager(em -> findSql.byId(em, id)).map(r -> Rows.snapshot(r, json));
    }

    /** @return what each of this node's queues is doing now (for gauges), one per configured queue */
    List<QueueActivity> queueActivity() {
        return List.copyOf(schedulers);
    }
}
