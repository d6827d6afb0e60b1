package io.gendurable.impl.poke;

import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.Loops;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import javax.sql.DataSource;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Cross-node pokes over PostgreSQL {@code LISTEN/NOTIFY}. Sending: at most one {@code pg_notify}
 * statement per window ({@code gendurable.poke.window}). The first poke after a quiet window goes
 * out at once (an isolated insert pays no delay); pokes that arrive while a window is open are
 * collected per queue and go out together when it ends, so a stream of sequential inserts costs
 * one notification per queue per window instead of one per insert. Receiving: a
 * dedicated listener connection waits for notifications and pokes this node's schedulers; it
 * probes its connection every {@code gendurable.poke.probe-interval} under a network timeout of
 * the same length (a half-open connection never fails a wait for notifications), reconnects after
 * losing it, and then pokes every local queue once (it may have missed something). Payloads are tagged with the sender, so a node never pokes itself twice.
 * Best-effort: the poll stays the floor.
 */
public final class PostgresPoke implements Poke {
    private static final Logger LOG = System.getLogger("io.gendurable.poke");

    private final EngineContext ctx;
    private final DataSource dataSource;
    private final DataSource listenerDataSource;
    private final String channel;
    private final PokeOrigin origin;
    private final Runnable pokeAllLocal;
    private final ScheduledExecutorService timer;
    private final ExecutorService listenerThread;
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean sendScheduled = new AtomicBoolean();
    private final long windowNanos;
    /** When the last send started (System.nanoTime); a window is open until lastSend + windowNanos. */
    private volatile long lastSend;
    private final int probeMillis;
    private static final int RELEASE_TIMEOUT_MILLIS = 1_000;
    private volatile boolean running;
    private volatile Connection listening;
    private volatile boolean listenerStarted;
    private final CountDownLatch listenerExited = new CountDownLatch(1);

    /**
     * @param ctx          the engine's context (its poke window, schema, timer, counters; the
     *                     listener's long-running task runs on its step executor)
     * @param dataSource   where the sends take their short autocommitted connection ({@code pg_notify}
     *                     needs no session: it works through a transaction-mode pooler)
     * @param listenerDataSource where the listener takes its own connection, outside the persistence
     *                     unit: it must keep its session ({@code LISTEN}), so never a transaction-mode pooler
     * @param local        this node's schedulers, told of each queue a NOTIFY names
     * @param pokeAllLocal pokes every local scheduler (after a reconnect, when NOTIFYs may have been missed)
     */
    public PostgresPoke(EngineContext ctx, DataSource dataSource, DataSource listenerDataSource, Consumer<String> local,
                        Runnable pokeAllLocal) {
        this.ctx = ctx;
        this.dataSource = dataSource;
        this.listenerDataSource = listenerDataSource;
        this.windowNanos = ctx.config().poke().window().toNanos();
        this.probeMillis = (int) Math.min(Integer.MAX_VALUE, ctx.config().poke().probeInterval().toMillis());
        this.lastSend = System.nanoTime() - windowNanos;
        this.channel = channelFor(ctx.statements().schema().name());
        this.origin = new PokeOrigin(ctx.metrics(), local);
        this.pokeAllLocal = pokeAllLocal;
        this.timer = ctx.requireTimer();
        this.listenerThread = ctx.requireSteps();
    }

    /**
     * The channel of a schema. Channel names are identifiers, at most 63 bytes: pg_notify rejects a
     * longer one while LISTEN silently truncates it, so a long schema name would never get a poke
     * through. Too long: a readable prefix plus a hash of the whole name (the same on every node).
     */
    static String channelFor(String schema) {
        String c = "gendurable_" + schema;
        return c.length() <= 63 ? c : c.substring(0, 54) + "_" + String.format("%08x", schema.hashCode());
    }

    @Override
    public void poke(String queue) {
        pending.add(queue);
        if (sendScheduled.compareAndSet(false, true)) {
            // Never on the caller's thread (the send borrows a connection): at once on the timer
            // when the last window has closed, else when it closes.
            long delay = Math.max(0, lastSend + windowNanos - System.nanoTime());
            timer.schedule(() -> Loops.guarded(LOG, "poke send", ctx.metrics(), this::send), delay, TimeUnit.NANOSECONDS);
        }
    }

    private void send() {
        lastSend = System.nanoTime();
        sendScheduled.set(false);
        List<String> queues = List.copyOf(pending);
        pending.removeAll(queues);
        if (queues.isEmpty()) {
            return;
        }
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ? || '|' || q) FROM unnest(?::text[]) AS q")) {
            c.setAutoCommit(true);
            ps.setString(1, channel);
            ps.setString(2, origin.id());
            ps.setArray(3, c.createArrayOf("text", queues.toArray()));
            ps.execute();
            ctx.metrics().pokesSent.add(queues.size());
        } catch (SQLException e) {
            throw new IllegalStateException("pg_notify failed: " + e.getMessage(), e);
        }
    }

    public void start() {
        running = true;
        listenerThread.execute(this::listenLoop);
        listenerStarted = true;
    }

    /**
     * Stops listening. The listener itself UNLISTENs and returns its connection (within one
     * notification wait): closing the connection from here would hand the pool a connection
     * still listening on the channel, piling up every later notification in its driver's queue.
     */
    public void stop() {
        running = false;
        if (!listenerStarted) {
            return;
        }
        try {
            if (!listenerExited.await(2, TimeUnit.SECONDS)) {
                LOG.log(Level.WARNING, "gen-durable poke listener did not stop within 2 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the backend pid of the listener connection, or -1 (for tests that kill it) */
    public int listenerPid() {
        Connection c = listening;
        try {
            return c == null ? -1 : c.unwrap(PGConnection.class).getBackendPID();
        } catch (SQLException e) {
            return -1;
        }
    }

    private void listenLoop() {
        try {
            listen();
        } finally {
            listening = null;
            listenerExited.countDown();
        }
    }

    private void listen() {
        long backoff = 100;
        boolean first = true;
        while (running) {
            try (Connection c = listenerDataSource.getConnection()) {
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + channel);
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                // every read on this connection is bounded: a half-open socket (the far side gone
                // without a close reaching us) fails the next probe instead of waiting forever
                int originalTimeout = c.getNetworkTimeout();
                c.setNetworkTimeout(Runnable::run, probeMillis);
                listening = c;
                if (!first) {
                    ctx.metrics().pokeReconnects.increment();
                    LOG.log(Level.INFO, "gen-durable poke listener reconnected on channel " + channel);
                    pokeAllLocal.run();  // we may have missed pokes while away
                }
                first = false;
                backoff = 100;
                long nextProbe = System.nanoTime() + probeMillis * 1_000_000L;
                try {
                    while (running) {
                        PGNotification[] notes = pg.getNotifications(500);
                        if (notes != null) {
                            for (PGNotification n : notes) {
                                origin.receive(n.getParameter());
                            }
                        }
                        if (System.nanoTime() - nextProbe >= 0) {
                            // only a round trip proves the connection: waiting for notifications never writes
                            try (Statement s = c.createStatement()) {
                                s.execute("SELECT 1");
                            }
                            nextProbe = System.nanoTime() + probeMillis * 1_000_000L;
                        }
                    }
                } finally {
                    release(c, originalTimeout);
                }
            } catch (LinkageError e) {
                listening = null;
                LOG.log(Level.ERROR, "gen-durable poke=postgres cannot run: the application does not see the "
                        + "PostgreSQL driver classes (org.postgresql.PGConnection); pokes fall back to the poll. "
                        + "In Liberty, add <classloader commonLibraryRef=\"postgresql\"/> to the application. " + e);
                return;
            } catch (SQLException | RuntimeException e) {
                listening = null;
                if (!running) {
                    return;
                }
                LOG.log(Level.WARNING, "gen-durable poke listener lost its connection; reconnecting in "
                        + backoff + " ms: " + e);
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
                backoff = Math.min(backoff * 2, 5_000);
            }
        }
        listening = null;
    }

    /**
     * Readies the listener connection for its return to the pool: UNLISTEN through the pooled
     * connection. On a live connection that stops the notifications; on a dead one it fails, and
     * that failure (SQLSTATE 08xxx) passing through the pool's proxy is what makes the pool evict
     * the connection. The listener's own error came from the unwrapped PGConnection, which the pool
     * never sees: without this the pool would hand the dead connection to the next borrower.
     */
    private static void release(Connection c, int originalTimeout) {
        try {
            c.setNetworkTimeout(Runnable::run, RELEASE_TIMEOUT_MILLIS);  // on a dead socket UNLISTEN fails, never hangs
            try (Statement s = c.createStatement()) {
                s.execute("UNLISTEN *");
            }
            c.setNetworkTimeout(Runnable::run, originalTimeout);
        } catch (SQLException | RuntimeException ignored) {
            // dead: the pool saw the error and evicts it
        }
    }
}
