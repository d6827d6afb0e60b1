package io.gendurable.impl.engine;

import io.gendurable.InstanceSnapshot;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.ops.Rows;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.claim.ClaimRelease;
import io.gendurable.impl.claim.Claimer;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.flush.FlushSql;
import io.gendurable.impl.flush.Flusher;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.lease.Reaper;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.step.InlineContinuation;
import io.gendurable.impl.step.OutcomeEncoder;
import io.gendurable.impl.step.Claimed;
import io.gendurable.impl.step.StepRunner;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * The synchronous seam that {@code io.gendurable.testing} drives: one claim of one queue through
 * the production {@link Claimer} (claim, inbox and children loads, admission), each claimed step
 * run by the production {@link StepRunner} in the calling thread, each outcome written by a
 * synchronous {@link Flusher} (the same {@link FlushSql} transaction and after-commit hooks, no
 * timer thread). It holds no loop and no policy: the caller decides when to stop and whether
 * time moves. It refuses to run on a started engine, whose schedulers would race it.
 */
public final class DrainRunner {

    /**
     * One step that ran.
     *
     * @param id      the instance
     * @param fsm     its FSM name
     * @param step    the step that ran
     * @param queue   its queue
     * @param outcome next, retry, await, schedule_children, done or stop
     * @param error   the failure that led to this outcome through {@code onError}, else null
     * @param stale   true when the outcome committed nothing
     */
    public record Ran(long id, String fsm, String step, String queue, String outcome, String error, boolean stale) {
    }

    /**
     * A step threw a {@link VirtualMachineError} ({@code StackOverflowError}, {@code OutOfMemoryError}…),
     * which the engine does not catch: its row stays executing, as on a node, where its lease then
     * lapses and the reaper runs the step again.
     */
    public static final class StepCrashed extends RuntimeException {
        private static final long serialVersionUID = 1L;
        /** The instance, its FSM, step and attempt. */
        private final long id;
        private final String fsm;
        private final String step;
        private final int attempt;

        StepCrashed(long id, String fsm, String step, int attempt, VirtualMachineError cause) {
            super("step '" + step + "' of instance " + id + " (FSM '" + fsm + "', attempt " + attempt + ") threw " + cause,
                    cause);
            this.id = id;
            this.fsm = fsm;
            this.step = step;
            this.attempt = attempt;
        }

        /** @return the instance */
        public long id() {
            return id;
        }

        /** @return its FSM */
        public String fsm() {
            return fsm;
        }

        /** @return the step that threw */
        public String step() {
            return step;
        }

        /** @return its attempt */
        public int attempt() {
            return attempt;
        }
    }

    private final EngineContext ctx;
    private final EngineConfig config;
    private final FsmRegistry registry;
    private final Json json;
    private final Db db;
    private final ClaimRelease releases;
    private final DrainSql drainSql;
    private final FindSql findSql = new FindSql();
    private final Reaper reaper;
    private final InstantSource clock;
    private final EngineMetrics metrics;
    private final EngineEvents events;
    private final BooleanSupplier engineStarted;
    private final StepRunner runner;
    private final Flusher flusher;
    private final Map<String, Claimer> claimers = new HashMap<>();
    private final Map<String, String> workers = new HashMap<>();
    private final List<Ran> ran = new ArrayList<>();
    private final Limiter limiter;

    /**
     * @param engine        the engine's context
     * @param encoder       turns outcomes into transitions
     * @param limiter       admits the rows that name a gate or a rate limit
     * @param afterCommit   told after each flush (the engine's await waiters and pokes)
     * @param reaper        the engine's reaper, whose await-timeout sweep {@link #fireTimeouts} runs
     * @param engineStarted whether the engine was started (a drain then refuses to run)
     */
    DrainRunner(EngineContext engine, OutcomeEncoder encoder, Limiter limiter, Flusher.AfterCommit afterCommit,
                Reaper reaper, BooleanSupplier engineStarted) {
        // Everything runs in the caller's thread: no timer, no step executor. The step runner
        // records what ran; the flusher writes each outcome before submit returns.
        this.ctx = engine.synchronous(new Recording());
        this.config = ctx.config();
        this.registry = ctx.registry();
        this.json = ctx.json();
        this.db = ctx.db();
        this.releases = new ClaimRelease(ctx, limiter);
        this.drainSql = ctx.statements().of(DrainSql.class, DrainSql::new);
        this.limiter = limiter;
        this.reaper = reaper;
        this.clock = ctx.clock();
        this.metrics = ctx.metrics();
        this.events = engine.events();
        this.engineStarted = engineStarted;
        this.runner = new StepRunner(ctx, encoder, new InlineContinuation(ctx, limiter, encoder));
        this.flusher = new Flusher(engine.synchronous(engine.events()),
                new EngineConfig.FlusherConfig(List.of("*"), 1, Duration.ZERO), afterCommit);
    }

    /**
     * One claim of {@code queue} for up to {@code demand} rows, then every claimed step, in claim
     * order, in this thread; each step's outcome is durable before the next starts. An inline
     * FSM's chained steps run too, as long as every claimed row can still run within
     * {@code maxSteps}; past that, the chain's next step is committed runnable as usual.
     *
     * @param queue    the queue
     * @param demand   rows to claim at most (capped at {@code maxSteps})
     * @param maxSteps steps to run at most in this call
     * @return the steps that ran (empty: nothing was due and admitted)
     * @throws IllegalStateException when the engine was started (its schedulers would race this)
     */
    public synchronized List<Ran> runOnce(String queue, int demand, int maxSteps) {
        if (engineStarted.getAsBoolean()) {
            throw new IllegalStateException("a drain needs an engine that was prepared, not started: "
                    + "its schedulers would race the drain for the same rows");
        }
        if (demand < 1 || maxSteps < 1) {
            throw new IllegalArgumentException("demand and maxSteps must be 1 or more, got " + demand + " and " + maxSteps);
        }
        String worker = workers.computeIfAbsent(queue, q -> config.node().id() + ":" + q + "@drain-"
                + UUID.randomUUID().toString().substring(0, 8));
        Claimer claimer = claimers.computeIfAbsent(queue, q -> new Claimer(ctx, q, worker, releases, limiter, (qq, nanos) -> { }));
        List<Claimed> rows = claimer.claim(Math.min(demand, maxSteps));
        metrics.picks.increment();
        metrics.picked.add(rows.size());
        events.picked(queue, rows.size());
        ran.clear();
        int started = 0;
        try {
            for (Claimed p : rows) {
                started++;
                int unstarted = rows.size() - started;
                // Asked before each step runs: may its next step chain inline? Only if this step, the
                // chained one and one step of every row still waiting fit within maxSteps.
                BooleanSupplier mayChain = () -> ran.size() + 2 + unstarted <= maxSteps;
                try {
                    runner.run(p, worker, flusher, mayChain);
                } catch (VirtualMachineError e) {
                    throw new StepCrashed(p.row().id(), p.row().fsm(), p.row().step(), p.row().attempt(), e);
                }
            }
        } finally {
            if (started < rows.size()) {
                release(worker, rows.subList(started, rows.size()));
            }
        }
        List<Ran> out = List.copyOf(ran);
        ran.clear();
        return out;
    }

    /** Gives back claimed rows that never started (a step before them failed to flush), with their gate slots. */
    private void release(String worker, List<Claimed> unstarted) {
        releases.release(worker, unstarted);
    }

    /** @return the queues this engine serves: its configured queues ({@code gendurable.queues}), as a node's */
    public Set<String> servedQueues() {
        return new LinkedHashSet<>(config.node().queues().keySet());
    }

    /** @return queue → what is runnable there at {@code now} (queues with nothing runnable are absent) */
    public Map<String, DrainSql.Backlog> backlog(Instant now) {
        return db.inTransaction(c -> drainSql.backlog(c, now, registry.claimKeys()));
    }

    /** @return the latest deadline among parked awaits that have one */
    public Optional<Instant> lastAwaitDeadline() {
        return db.inTransaction(drainSql::lastAwaitDeadline);
    }

    /**
     * @param after an instant
     * @return the earliest next fire time after {@code after} among the unpaused schedules of the registered FSMs
     */
    public Optional<Instant> nextScheduleFire(Instant after) {
        Set<String> fsms = new LinkedHashSet<>();
        registry.all().forEach(d -> fsms.add(d.name()));
        return fsms.isEmpty() ? Optional.empty() : db.inTransaction(c -> drainSql.nextScheduleFire(c, fsms, after));
    }

    /**
     * When the rows due now that name a rate limit wait for its bucket to refill: the earliest
     * instant one of them could be admitted (the bucket's shards, refilled at the configured rate).
     *
     * @param now the clock's instant
     * @return that instant, after {@code now}; empty when no due row waits on a configured rate limit's refill
     */
    public Optional<Instant> nextRefill(Instant now) {
        Instant best = null;
        for (DrainSql.Refill r : db.inTransaction(c -> drainSql.refills(c, now))) {
            LimitsConfig.RateLimit limit = config.limits().rateFor(r.key());
            if (limit == null || r.lastRefill() == null) {
                continue;
            }
            double perShard = limit.perSecond() / limit.shards();
            double seconds = Math.max(0, r.weight() - r.available()) / perShard;
            Instant at = r.lastRefill().plusNanos((long) Math.ceil(seconds * 1e6) * 1000);
            if (at.isAfter(now) && (best == null || at.isBefore(best))) {
                best = at;
            }
        }
        return Optional.ofNullable(best);
    }

    /** @return the earliest deadline among parked awaits that have one (a passed one included) */
    public Optional<Instant> nextAwaitDeadline() {
        return db.inTransaction(drainSql::nextAwaitDeadline);
    }

    /** @return how many parked awaits whose deadline has passed (by the engine's clock) woke: the reaper's sweep */
    public int fireDueTimeouts() {
        return reaper.fireTimeouts();
    }

    /** @return every instance of the FSM named {@code fsm}, in id order */
    public List<InstanceSnapshot> instances(String fsm) {
        return db.withEntityManager(em -> findSql.byFsm(em, fsm)).stream().map(r -> Rows.snapshot(r, json)).toList();
    }

    /** @return the engine's clock */
    public InstantSource clock() {
        return clock;
    }

    /** The engine's observers, plus a record of each step for {@link #runOnce}'s answer. */
    private final class Recording implements EngineEvents {
        @Override
        public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos,
                                 String error, boolean stale) {
            ran.add(new Ran(id, fsm, step, queue, outcome, error, stale));
            events.stepFinished(id, fsm, step, queue, outcome, nanos, error, stale);
        }

        @Override
        public void picked(String queue, int count) {
            events.picked(queue, count);
        }

        @Override
        public void flushed(int outcomes, long nanos) {
            events.flushed(outcomes, nanos);
        }
    }
}
