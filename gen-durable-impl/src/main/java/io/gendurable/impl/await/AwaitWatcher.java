package io.gendurable.impl.await;

import io.gendurable.impl.runtime.Background;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.Periodic;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Finds results committed on other nodes for this node's await callers: ONE probe statement
 * per tick covering every waiter; no waiters, no queries. (Same-node results are pushed by the
 * flusher and need no probe.)
 */
public final class AwaitWatcher implements Background {
    private static final System.Logger LOG = System.getLogger("io.gendurable.await");

    private final EngineContext ctx;
    private final Awaiters awaiters;
    private final AwaitSql sql;
    private final Periodic loop;

    /**
     * @param ctx      the engine's context
     * @param awaiters the waiting callers to tell
     */
    public AwaitWatcher(EngineContext ctx, Awaiters awaiters) {
        this.ctx = ctx;
        this.awaiters = awaiters;
        this.sql = ctx.statements().of(AwaitSql.class, AwaitSql::new);
        this.loop = new Periodic(ctx.requireTimer(), ctx.config().await().tick(),
                () -> Loops.guarded(LOG, "await watcher", ctx.metrics(), this::runOnce));
    }

    @Override
    public Periodic loop() {
        return loop;
    }

    /** One probe for every waiter, if any. */
    void runOnce() {
        if (awaiters.isEmpty()) {
            return;
        }
        Set<Long> ids = awaiters.ids();
        Map<Long, String> statuses = ctx.db().inTransaction(c -> sql.probe(c, ids));
        ctx.metrics().awaitProbes.increment();
        awaiters.observed(statuses);
        Set<Long> gone = new HashSet<>(ids);
        gone.removeAll(statuses.keySet());
        awaiters.vanished(gone);
    }
}
