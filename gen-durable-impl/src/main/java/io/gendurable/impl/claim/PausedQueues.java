package io.gendurable.impl.claim;

import io.gendurable.impl.runtime.Background;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.Periodic;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * This node's view of the queues paused cluster-wide, read by one statement every poll interval,
 * at once on the node that pauses or resumes a queue, and soon after a poke for a queue this view
 * holds paused (a resume pokes the queue: the node runs it again without waiting for its next
 * refresh). Another node hears of a pause at its next refresh: until then it may start rows it
 * had prefetched (it claims none, the claim reading the pauses itself). The claim itself never takes a paused queue's rows (it
 * checks the table in the same statement); this view is for what the claim cannot see: a
 * scheduler starts none of the rows it had already prefetched and gives them back, and it polls
 * instead of claiming.
 */
public final class PausedQueues implements Background {
    private static final Logger LOG = System.getLogger("io.gendurable.claim");

    private final EngineContext ctx;
    private final ClaimSql sql;
    private final Runnable changed;
    private final Periodic loop;
    // replaced whole by the refresh loop, read by any thread
    private volatile Set<String> paused = Set.of();
    // a refresh asked by refreshSoon and not begun yet: asks in the meantime are the same refresh
    private final AtomicBoolean refreshAsked = new AtomicBoolean();

    /**
     * @param ctx     the engine's context
     * @param changed told when the set changed (the engine pokes its schedulers)
     */
    public PausedQueues(EngineContext ctx, Runnable changed) {
        this.ctx = ctx;
        this.sql = ctx.statements().of(ClaimSql.class, ClaimSql::new);
        this.changed = changed;
        this.loop = new Periodic(ctx.requireTimer(), ctx.config().poll().interval(),
                () -> Loops.guarded(LOG, "paused-queues refresh", ctx.metrics(), this::refresh));
    }

    /** @param queue a queue @return whether it was paused at the last refresh */
    public boolean isPaused(String queue) {
        return paused.contains(queue);
    }

    /** @return the queues paused at the last refresh */
    public Set<String> paused() {
        return paused;
    }

    /** Reads the paused queues now; tells {@code changed} when they differ from the last read. */
    public void refresh() {
        Set<String> now = Set.copyOf(ctx.db().inTransaction(sql::pausedQueues));
        Set<String> before = paused;
        paused = now;
        if (!now.equals(before)) {
            LOG.log(Level.INFO, "gen-durable: paused queues now " + now + " (were " + before + ")");
            changed.run();
        }
    }

    /**
     * Asks for a {@link #refresh} on the timer, soon; asks before it begins are one refresh. For a
     * poke of a queue this view holds paused, which may be its resume.
     */
    public void refreshSoon() {
        if (refreshAsked.compareAndSet(false, true)) {
            try {
                ctx.requireTimer().execute(() -> {
                    refreshAsked.set(false);
                    Loops.guarded(LOG, "paused-queues refresh", ctx.metrics(), this::refresh);
                });
            } catch (RejectedExecutionException e) {
                refreshAsked.set(false);  // stopping: the periodic refresh is gone too
            }
        }
    }

    @Override
    public Periodic loop() {
        return loop;
    }

    /** Reads the paused queues once, then refreshes them every poll interval. */
    @Override
    public void start() {
        Loops.guarded(LOG, "paused-queues refresh", ctx.metrics(), this::refresh);
        loop.start();
    }
}
