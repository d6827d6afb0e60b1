package io.gendurable.impl.nodes;

import io.gendurable.NodeStatus;
import io.gendurable.OperationsSummary;
import io.gendurable.QueueAlert;
import io.gendurable.QueueSummary;
import io.gendurable.Status;
import io.gendurable.impl.runtime.EngineContext;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The operations API's view of the nodes: their beacons ({@link #nodes()}) and the alerts the
 * summary derives from the live ones ({@link #alerts}).
 */
public final class NodeDirectory {
    private static final Logger LOG = System.getLogger("io.gendurable.nodes");
    /** A node is live while its beacon is no older than this many of its intervals. */
    public static final int LIVE_INTERVALS = 3;

    private final EngineContext ctx;
    private final NodeSql sql;

    /** @param ctx the engine's context */
    public NodeDirectory(EngineContext ctx) {
        this.ctx = ctx;
        this.sql = ctx.statements().of(NodeSql.class, NodeSql::new);
    }

    /** @return the nodes seen within this node's {@code gendurable.nodes.retention}, by id */
    public List<NodeStatus> nodes() {
        return nodes(ctx.clock().instant());
    }

    private List<NodeStatus> nodes(Instant now) {
        List<NodeSql.Row> rows = ctx.db().inTransaction(c -> sql.list(c, now.minus(ctx.config().nodes().retention())));
        List<NodeStatus> out = new ArrayList<>(rows.size());
        for (NodeSql.Row r : rows) {
            NodeInfo info;
            try {
                info = (NodeInfo) ctx.json().read(r.infoJson(), NodeInfo.class);
            } catch (RuntimeException e) {
                // another release's beacon: list the node with what the columns say
                LOG.log(Level.DEBUG, "gen-durable: the beacon of node " + r.node() + " does not read: " + e);
                info = new NodeInfo(null, null, null, null, null, null, null, null, null);
            }
            Duration interval = info.interval() == null ? ctx.config().nodes().beaconInterval() : info.interval();
            boolean live = !r.seenAt().isBefore(now.minus(interval.multipliedBy(LIVE_INTERVALS)));
            out.add(new NodeStatus(r.node(), r.startedAt(), r.seenAt(), live, info.fsms(), info.queues(), info.rateLimits(),
                    info.gates(), info.inFlight(), info.throughput(), info.stepTimings()));
        }
        return out;
    }

    /**
     * @param summary a summary without alerts
     * @return its alerts against the live nodes: {@link QueueAlert.Kind#NO_NODE_SERVES} for a queue
     * with runnable instances that no live node claims from, {@link QueueAlert.Kind#UNKNOWN_RATE_LIMIT}
     * for a rate-limit name that runnable instances carry and no live node configures; by queue, then kind
     */
    public List<QueueAlert> alerts(OperationsSummary summary) {
        List<QueueSummary> runnable = summary.queues().stream().filter(q -> q.count(Status.RUNNABLE) > 0).toList();
        if (runnable.isEmpty()) {
            return List.of();  // neither alert applies: no statement
        }
        List<NodeStatus> live = nodes(summary.at()).stream().filter(NodeStatus::live).toList();
        Set<String> served = new TreeSet<>();
        Set<String> limits = new TreeSet<>();
        live.forEach(n -> {
            served.addAll(n.queues());
            limits.addAll(n.rateLimits());
        });
        List<QueueAlert> out = new ArrayList<>();
        for (QueueSummary q : runnable) {
            if (!served.contains(q.queue())) {
                out.add(new QueueAlert(q.queue(), QueueAlert.Kind.NO_NODE_SERVES, AlertWording.runnable(q.count(Status.RUNNABLE))
                        + (q.oldestRunnableSince() == null ? "" : ", the oldest due for "
                        + AlertWording.age(q.oldestRunnableAge())) + "; no live node claims from queue " + q.queue() + " ("
                        + (live.isEmpty() ? "no live node" : "live nodes serve " + served) + ")"));
            }
        }
        for (NodeSql.RateUse u : ctx.db().inTransaction(sql::rateNames)) {
            if (!limits.contains(u.name())) {
                out.add(new QueueAlert(u.queue(), QueueAlert.Kind.UNKNOWN_RATE_LIMIT, AlertWording.runnable(u.count())
                        + " " + AlertWording.carry(u.count()) + " rate limit '" + u.name() + "', which no live node configures"
                        + " (gendurable.rate-limits." + u.name() + ".allowed): no node admits them"
                        + (limits.isEmpty() ? "" : "; live nodes configure " + limits)));
            }
        }
        out.sort(Comparator.comparing(QueueAlert::queue).thenComparing(QueueAlert::kind));
        return out;
    }
}
