package io.gendurable.impl.keys;

import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.Loops;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the waiting rows of busy K = 1 keys out of the claims' way ({@link KeySql}), on each node
 * for its own queues, with no setting to tune:
 * <ul>
 *   <li>{@link #claimTook}: a claim that ran long ({@value #SLOW_CLAIM_MILLIS} ms or more: a
 *       claim of a batch reads about its batch, under a millisecond) starts a blocking run for its
 *       queue on the engine's timer: passes of {@value #WALK} rows until one blocks nothing. A
 *       queue is walked at most every {@value #MIN_GAP_MILLIS} ms; a run that found nothing to
 *       block doubles its queue's gap, up to {@value #MAX_GAP_MILLIS} ms, so a queue that is slow
 *       for another reason costs one walk a minute.</li>
 *   <li>{@link #sweep}: in the reaper's loop, unblocks the first row of every key that has blocked
 *       rows and none executing.</li>
 * </ul>
 * Counted in {@code gendurable.keys.blocked} and {@code gendurable.keys.unblocked} (the sweep's).
 */
public final class KeyBlocking {
    private static final Logger LOG = System.getLogger("io.gendurable.keys");
    /** A claim at least this long starts a blocking run for its queue. */
    static final long SLOW_CLAIM_MILLIS = 20;
    /** The rows one blocking pass reads, in the claim's order. */
    static final int WALK = 5_000;
    /**
     * The rows a run's first pass reads: a claim slowed by a key's waiting rows read them first, so
     * they fill the head of the claim order; a run on a queue slow for another reason stops after
     * this short walk.
     */
    static final int PROBE = 500;
    /** A blocking run stops after this many passes (a million rows) even if the last one blocked some. */
    static final int MAX_PASSES = 200;
    /** Passes in a row that found rows to block but blocked none, before a run gives up. */
    static final int RETRIES = 20;
    static final long RETRY_MILLIS = 5;
    static final long MIN_GAP_MILLIS = 200;
    static final long MAX_GAP_MILLIS = 60_000;
    /** The keys the sweep reads at a time. */
    static final int SWEEP_BATCH = 500;

    private final EngineContext ctx;
    private final KeySql sql;
    private final String[] gateNames;
    private final Poke poke;
    private final Map<String, Pace> paces = new ConcurrentHashMap<>();

    /** When a queue may be walked again, and whether a run is under way. */
    private static final class Pace {
        boolean running;
        long notBefore = System.nanoTime();
        long gapNanos = TimeUnit.MILLISECONDS.toNanos(MIN_GAP_MILLIS);
    }

    /**
     * @param ctx  the engine's context (its database, timer, clock and configured gates)
     * @param poke told of the queues whose rows the sweep unblocked
     */
    public KeyBlocking(EngineContext ctx, Poke poke) {
        this.ctx = ctx;
        this.sql = ctx.statements().of(KeySql.class, KeySql::new);
        this.gateNames = ctx.config().limits().concurrencyLimits().keySet().toArray(new String[0]);
        this.poke = poke;
    }

    /**
     * Told how long a claim of {@code queue} took; a long one starts a blocking run on the timer
     * unless one is under way or the queue was walked too recently.
     */
    public void claimTook(String queue, long nanos) {
        if (nanos < TimeUnit.MILLISECONDS.toNanos(SLOW_CLAIM_MILLIS)) {
            return;
        }
        Pace pace = paces.computeIfAbsent(queue, q -> new Pace());
        synchronized (pace) {
            if (pace.running || System.nanoTime() - pace.notBefore < 0) {
                return;
            }
            pace.running = true;
        }
        try {
            ctx.requireTimer().execute(() -> run(queue, pace));
        } catch (RejectedExecutionException e) {
            synchronized (pace) {
                pace.running = false;  // the engine is stopping
            }
        }
    }

    private void run(String queue, Pace pace) {
        int[] found = {0};
        try {
            Loops.guarded(LOG, "key blocking of queue " + queue, ctx.metrics(), () -> found[0] = runOnce(queue));
        } finally {
            synchronized (pace) {
                pace.running = false;
                pace.gapNanos = found[0] > 0 ? TimeUnit.MILLISECONDS.toNanos(MIN_GAP_MILLIS)
                        : Math.min(2 * pace.gapNanos, TimeUnit.MILLISECONDS.toNanos(MAX_GAP_MILLIS));
                pace.notBefore = System.nanoTime() + pace.gapNanos;
            }
        }
    }

    /**
     * Blocks, pass after pass, the rows of {@code queue} that K = 1 keys hold back, until a pass
     * finds none. A pass that found some but blocked none (their heads were being claimed) is
     * repeated after {@value #RETRY_MILLIS} ms, up to {@value #RETRIES} times in a row.
     *
     * @return how many rows it found blockable, blocked or not (0: the queue's slowness is not a key's)
     */
    public int runOnce(String queue) {
        int blocked = 0;
        int found = 0;
        int idle = 0;
        for (int pass = 0; pass < MAX_PASSES; pass++) {
            int walk = pass == 0 ? PROBE : WALK;
            KeySql.Pass p = ctx.db().inTransaction(c -> sql.block(c, queue, ctx.clock().instant(), walk, gateNames));
            blocked += p.blocked();
            found += p.blockable();
            if (p.blockable() == 0 || (p.blocked() == 0 && ++idle > RETRIES)) {
                break;
            }
            if (p.blocked() > 0) {
                idle = 0;
            } else {
                try {
                    Thread.sleep(RETRY_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (blocked > 0) {
            ctx.metrics().keysBlocked.add(blocked);
            int n = blocked;
            LOG.log(Level.DEBUG, () -> "gen-durable: queue " + queue + ": " + n + " rows blocked behind their K = 1 key's head");
        }
        return found;
    }

    /**
     * The backstop: the first blocked row of every key that has blocked rows and none executing
     * is unblocked, and its queue poked.
     *
     * @return how many rows it unblocked
     */
    public int sweep() {
        Set<String> queues = new LinkedHashSet<>();
        int total = 0;
        String after = "";
        while (true) {
            String from = after;
            List<String> keys = ctx.db().inTransaction(c -> sql.blockedKeys(c, from, SWEEP_BATCH));
            if (keys.isEmpty()) {
                break;
            }
            List<String> unblocked = ctx.db().inTransaction(c -> sql.unblock(c, keys));
            queues.addAll(unblocked);
            total += unblocked.size();
            if (keys.size() < SWEEP_BATCH) {
                break;
            }
            after = keys.get(keys.size() - 1);
        }
        if (total > 0) {
            ctx.metrics().keysUnblocked.add(total);
        }
        queues.forEach(poke::poke);
        return total;
    }
}
