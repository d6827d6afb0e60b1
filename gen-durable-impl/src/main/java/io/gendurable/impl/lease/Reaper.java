package io.gendurable.impl.lease;

import io.gendurable.events.AwaitsTimedOut;
import io.gendurable.events.LeasesReaped;
import io.gendurable.impl.runtime.EventKind;
import io.gendurable.impl.runtime.Background;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.keys.KeyBlocking;
import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.Periodic;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * Returns rows whose lease expired (their worker died or lost the database) to {@code runnable}
 * with {@code attempt + 1}, and pokes their queues; in the same loop, fires due await timeouts and
 * sweeps the keys left with blocked rows and none executing ({@link KeyBlocking#sweep}). Safe on several nodes at once: the sweep
 * claims with ordered {@code SKIP LOCKED}.
 */
public final class Reaper implements Background {
    private static final Logger LOG = System.getLogger("io.gendurable.lease");

    private final EngineContext ctx;
    private final EngineConfig.ReaperConfig config;
    private final LeaseSql sql;
    private final Poke poke;
    private final Periodic loop;
    private final ToIntFunction<List<Long>> cancels;

    /**
     * @param ctx  the engine's context
     * @param poke told of the queues whose rows the reaper made runnable again
     * @param keys whose sweep (blocked rows of keys with none executing) runs in the same loop
     */
    public Reaper(EngineContext ctx, Poke poke, KeyBlocking keys) {
        this(ctx, poke, keys, ids -> 0);
    }

    /**
     * @param cancels ends cancelled the rows whose cancel was requested and whose lease lapsed (their
     *                step is presumed dead): the reaper never returns them to runnable
     */
    public Reaper(EngineContext ctx, Poke poke, KeyBlocking keys, ToIntFunction<List<Long>> cancels) {
        this.cancels = cancels;
        this.ctx = ctx;
        this.config = ctx.config().reaper();
        this.sql = ctx.statements().of(LeaseSql.class, LeaseSql::new);
        this.poke = poke;
        this.loop = new Periodic(ctx.requireTimer(), config.interval(), () -> {
            Loops.guarded(LOG, "reaper", ctx.metrics(), this::runOnce);
            Loops.guarded(LOG, "await-timeout sweep", ctx.metrics(), this::fireTimeouts);
            Loops.guarded(LOG, "blocked-key sweep", ctx.metrics(), keys::sweep);
        });
    }

    @Override
    public Periodic loop() {
        return loop;
    }

    /** @return how many expired leases were reclaimed (sweeps until a batch comes back short) */
    public int runOnce() {
        List<Long> lapsed = ctx.db().inTransaction(c -> sql.lapsedCancels(c, ctx.clock().instant(), config.batch()));
        if (!lapsed.isEmpty()) {
            int n = cancels.applyAsInt(lapsed);
            LOG.log(Level.INFO, "gen-durable reaper: " + n + " rows whose cancel was requested and whose lease lapsed ended cancelled");
        }
        int total = sweep(c -> sql.reap(c, ctx.clock().instant(), config.batch()));
        if (total > 0) {
            ctx.metrics().reaped.add(total);
            if (ctx.bus().on(EventKind.LEASES_REAPED)) {
                ctx.bus().publish(new LeasesReaped(total));
            }
            LOG.log(Level.INFO, "gen-durable reaper: " + total + " expired leases returned to runnable");
        }
        return total;
    }

    /**
     * The parallel sweep: parked rows whose await deadline passed wake to their next step with
     * an empty {@code awaited()} (a wake, not a failure).
     *
     * @return how many awaits timed out
     */
    public int fireTimeouts() {
        int total = sweep(c -> sql.fireTimeouts(c, ctx.clock().instant(), config.batch()));
        ctx.metrics().awaitTimeouts.add(total);
        if (total > 0 && ctx.bus().on(EventKind.AWAITS_TIMED_OUT)) {
            ctx.bus().publish(new AwaitsTimedOut(total));
        }
        return total;
    }

    /** Runs one batched statement until a batch comes back short, then pokes the queues of the rows it made runnable. */
    private int sweep(Db.Work<List<LeaseSql.Reaped>> batch) {
        int total = 0;
        Set<String> queues = new LinkedHashSet<>();
        while (true) {
            List<LeaseSql.Reaped> rows = ctx.db().inTransaction(batch);
            total += rows.size();
            rows.forEach(r -> queues.add(r.queue()));
            if (rows.size() < config.batch()) {
                break;
            }
        }
        queues.forEach(poke::poke);
        return total;
    }
}
