package io.gendurable.impl.nodes;

import io.gendurable.FsmRegistration;
import io.gendurable.Job;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.runtime.Background;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.Periodic;
import io.gendurable.impl.runtime.QueueActivity;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * This node's beacon: every {@code gendurable.nodes.beacon-interval} one statement upserts its row
 * in {@code gen_durable_nodes} (its FSMs, queues, rate-limit and gate names, steps in flight per
 * queue, done and failed outcomes per queue per minute, step durations) and deletes the rows of
 * nodes not heard from for {@code gendurable.nodes.retention}. The first beacon is written at start;
 * a clean stop deletes the row.
 */
public final class NodeBeacon implements Background {
    private static final Logger LOG = System.getLogger("io.gendurable.nodes");

    private final EngineContext ctx;
    private final NodeActivity activity;
    private final Supplier<List<QueueActivity>> queues;
    private final NodeSql sql;
    private final EngineConfig.NodesConfig config;
    private final Periodic loop;
    private volatile Instant startedAt;
    /** The cluster-wide loops no live node ran at the last beacon → why; written by the beacon (under its lock). */
    private volatile Map<String, String> maintenanceGaps = Map.of();
    private boolean stopped;

    /**
     * @param ctx      the engine's context
     * @param activity what the node did recently
     * @param queues   what each of the node's queues runs now
     */
    public NodeBeacon(EngineContext ctx, NodeActivity activity, Supplier<List<QueueActivity>> queues) {
        this.ctx = ctx;
        this.activity = activity;
        this.queues = queues;
        this.sql = ctx.statements().of(NodeSql.class, NodeSql::new);
        this.config = ctx.config().nodes();
        this.loop = new Periodic(ctx.requireTimer(), config.beaconInterval(),
                () -> Loops.guarded(LOG, "node beacon", ctx.metrics(), this::beat));
    }

    /** @return the cluster-wide loops this node runs */
    private static List<String> maintenance(EngineConfig cfg) {
        List<String> run = new ArrayList<>(2);
        if (cfg.reaper().enabled()) {
            run.add("reaper");
        }
        if (cfg.gc().enabled()) {
            run.add("gc");
        }
        return run;
    }

    @Override
    public Periodic loop() {
        return loop;
    }

    /** Writes the first beacon now, then one every interval. */
    @Override
    public void start() {
        startedAt = ctx.clock().instant().truncatedTo(ChronoUnit.MICROS);  // as stored: the stop's delete matches it
        Loops.guarded(LOG, "node beacon", ctx.metrics(), this::beat);
        loop.start();
    }

    /** Stops the loop and deletes this node's row (a node that stops cleanly is gone at once). */
    @Override
    public void stop() {
        loop.stop();
        synchronized (this) {  // after a beat in flight, never before it (it would write the row again)
            stopped = true;
        }
        Instant started = startedAt;
        if (started == null) {
            return;
        }
        try {
            ctx.db().inTransaction(c -> sql.remove(c, ctx.config().node().id(), started));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: could not delete this node's beacon at stop (it ages out after "
                    + config.retention() + "): " + e);
        }
    }

    /** Writes this node's beacon now (the loop's iteration; tests call it). */
    public synchronized void beat() {
        Instant started = startedAt;
        if (started == null) {
            throw new IllegalStateException("the beacon has not started");
        }
        if (stopped) {
            return;
        }
        Instant now = ctx.clock().instant();
        String json = ctx.json().write(info(now));
        String node = ctx.config().node().id();
        boolean[] run = ctx.db().inTransaction(c -> {
            sql.beacon(c, node, started, now, json, now.minus(config.retention()));
            return sql.maintenance(c, now.minus(config.beaconInterval().multipliedBy(NodeDirectory.LIVE_INTERVALS)));
        });
        Map<String, String> gaps = new TreeMap<>();
        if (!run[0]) {
            gaps.put("reaper", "no live node runs the reaper (gendurable.reaper.enabled): lapsed claims stay taken");
        }
        if (!run[1]) {
            gaps.put("gc", "no live node runs the GC (gendurable.gc.enabled): ended instances are never deleted");
        }
        if (!gaps.equals(maintenanceGaps)) {
            gaps.forEach((task, why) -> {
                if (!maintenanceGaps.containsKey(task)) {
                    LOG.log(Level.WARNING, "gen-durable: " + why);
                }
            });
            maintenanceGaps.keySet().stream().filter(t -> !gaps.containsKey(t))
                    .forEach(t -> LOG.log(Level.INFO, "gen-durable: a live node runs the " + t + " again"));
            maintenanceGaps = Map.copyOf(gaps);
        }
    }

    /** @return the cluster-wide loops (reaper, GC) no live node ran at the last beacon → why (empty before one) */
    public Map<String, String> maintenanceGaps() {
        return maintenanceGaps;
    }

    /** @return what the beacon says at {@code now} */
    NodeInfo info(Instant now) {
        EngineConfig cfg = ctx.config();
        List<FsmRegistration> fsms = ctx.registry().all().stream()
                .sorted(Comparator.comparing(FsmDefinition::name).thenComparingInt(FsmDefinition::version))
                .map(d -> new FsmRegistration(d.name(), d.version(), d.queue(), Job.class.isAssignableFrom(d.beanClass())
                        ? FsmRegistration.Kind.JOB : FsmRegistration.Kind.FSM))
                .toList();
        Map<String, Integer> inFlight = new TreeMap<>();
        for (QueueActivity q : queues.get()) {
            inFlight.put(q.queue(), q.inFlight());
        }
        return new NodeInfo(config.beaconInterval(), fsms, List.copyOf(cfg.node().queues().keySet()),
                cfg.limits().rateLimits().keySet().stream().sorted().toList(),
                cfg.limits().concurrencyLimits().keySet().stream().sorted().toList(),
                inFlight, activity.throughput(now), activity.timings(now), maintenance(cfg));
    }
}
