package io.gendurable.impl.await;

import io.gendurable.impl.db.Db;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.Periodic;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Finds results committed on other nodes for this node's await callers: ONE probe statement
 * per tick covering every waiter; no waiters, no queries. (Same-node results are pushed by the
 * flusher and need no probe.)
 */
public final class AwaitWatcher {
    private static final System.Logger LOG = System.getLogger("io.gendurable.await");

    private final Awaiters awaiters;
    private final Db db;
    private final AwaitSql sql;
    private final EngineMetrics metrics;
    private final Periodic loop;

    public AwaitWatcher(Awaiters awaiters, Db db, AwaitSql sql, ScheduledExecutorService timer, Duration tick,
                 EngineMetrics metrics) {
        this.awaiters = awaiters;
        this.db = db;
        this.sql = sql;
        this.metrics = metrics;
        this.loop = new Periodic(timer, tick, () -> Loops.guarded(LOG, "await watcher", metrics, this::runOnce));
    }

    public void start() {
        loop.start();
    }

    public void stop() {
        loop.stop();
    }

    /** One probe for every waiter, if any. */
    void runOnce() {
        if (awaiters.isEmpty()) {
            return;
        }
        Set<Long> ids = awaiters.ids();
        Map<Long, String> statuses = db.inTransaction(c -> sql.probe(c, ids));
        metrics.awaitProbes.increment();
        awaiters.observed(statuses);
        Set<Long> gone = new HashSet<>(ids);
        gone.removeAll(statuses.keySet());
        awaiters.vanished(gone);
    }
}
