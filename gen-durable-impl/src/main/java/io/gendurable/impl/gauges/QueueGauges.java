package io.gendurable.impl.gauges;

import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.Periodic;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * The cluster-wide queue gauges: every {@code gauges.interval}, one statement ({@link GaugesSql})
 * counts the live rows of every queue by status and finds each queue's oldest due row; the
 * gauges then read the figures of that last run from memory, so a scrape never queries the
 * database. A queue stays in the figures once seen (this node's queues from the start), with
 * zeros when it has no live row left. When a run fails (logged and counted in
 * {@code gendurable.loop.errors}), the figures of the previous run stay.
 */
public final class QueueGauges {
    /** The name its iterations carry in {@link EngineMetrics#loops} (and in the log). */
    public static final String LOOP = "queue gauges";
    private static final System.Logger LOG = System.getLogger("io.gendurable.gauges");

    private final EngineConfig config;
    private final Db db;
    private final GaugesSql sql;
    private final ScheduledExecutorService timer;
    private final InstantSource clock;
    private final EngineMetrics metrics;
    private final Periodic loop;
    private final List<Consumer<Set<String>>> listeners = new CopyOnWriteArrayList<>();
    private volatile Map<String, Figures> figures = Map.of();
    private volatile Instant readAt;

    /**
     * One queue's figures, cluster-wide, as of the last run.
     *
     * @param queue            the queue
     * @param runnable         its {@code runnable} rows (due or scheduled for later)
     * @param executing        its {@code executing} rows (claimed, on any node)
     * @param awaitingSignal   its rows parked on a signal
     * @param awaitingChildren its rows waiting for their children
     * @param oldestDueAge     how long its oldest due runnable row had been due, in seconds; 0 when none was due
     * @param paused           whether the queue is paused: not read by this query (false); the gauge {@code gendurable.queue.paused} reads the engine's paused-queues view
     *                         (the hook for the operations API's pause: {@link GaugesSql})
     */
    public record Figures(String queue, long runnable, long executing, long awaitingSignal, long awaitingChildren,
                          double oldestDueAge, boolean paused) {
        static Figures empty(String queue) {
            return new Figures(queue, 0, 0, 0, 0, 0, false);
        }

        /** @param status a status's database name @return its count */
        public long count(String status) {
            return switch (status) {
                case "runnable" -> runnable;
                case "executing" -> executing;
                case "awaiting_signal" -> awaitingSignal;
                case "awaiting_children" -> awaitingChildren;
                default -> throw new IllegalArgumentException("not a live status: " + status);
            };
        }
    }

    /** The statuses counted, by their database names (the gauges' {@code status} tag). */
    public static final List<String> STATUSES = List.of("runnable", "executing", "awaiting_signal", "awaiting_children");

    /**
     * @param config  the engine's configuration ({@code gauges.*}, and this node's queues, shown from the start)
     * @param db      the engine's transactions
     * @param sql     the statement
     * @param timer   runs the loop
     * @param clock   what "due" and "age" are measured against
     * @param metrics counts failed runs; stamps each run in {@link EngineMetrics#loops}
     */
    public QueueGauges(EngineConfig config, Db db, GaugesSql sql, ScheduledExecutorService timer, InstantSource clock,
                       EngineMetrics metrics) {
        this.config = config;
        this.db = db;
        this.sql = sql;
        this.timer = timer;
        this.clock = clock;
        this.metrics = metrics;
        this.loop = new Periodic(timer, config.gauges().interval(), this::guardedRun);
    }

    private void guardedRun() {
        Loops.guarded(LOG, LOOP, metrics, this::runOnce);
    }

    /** Starts the loop: a first run at once, then one every {@code gauges.interval}. Idempotent. */
    public void start() {
        loop.start();
        try {
            timer.execute(this::guardedRun);
        } catch (RejectedExecutionException e) {
            LOG.log(System.Logger.Level.WARNING, "gen-durable: the first run of the queue gauges was refused: " + e);
        }
    }

    /** Stops the loop. Idempotent. */
    public void stop() {
        loop.stop();
    }

    /** @param listener told, after a run, of the queues that run showed for the first time (to register their gauges) */
    public void onNewQueues(Consumer<Set<String>> listener) {
        listeners.add(listener);
    }

    /** One run: the statement, then the new figures. Public for tests and tools. */
    public synchronized void runOnce() {
        Instant now = clock.instant();
        List<GaugesSql.Row> rows = db.inTransaction(c -> sql.read(c, now));
        Map<String, long[]> counts = new TreeMap<>();
        Map<String, Instant> oldest = new TreeMap<>();
        for (String q : figures.keySet()) {
            counts.put(q, new long[STATUSES.size()]);
        }
        for (String q : config.node().queues().keySet()) {
            counts.putIfAbsent(q, new long[STATUSES.size()]);
        }
        for (GaugesSql.Row r : rows) {
            counts.computeIfAbsent(r.queue(), q -> new long[STATUSES.size()])[STATUSES.indexOf(r.status())] += r.count();
            if (r.oldestDue() != null) {
                oldest.merge(r.queue(), r.oldestDue(), (a, b) -> a.isBefore(b) ? a : b);
            }
        }
        Map<String, Figures> next = new TreeMap<>();
        counts.forEach((q, n) -> {
            Instant due = oldest.get(q);
            double age = due == null ? 0 : Math.max(0, Duration.between(due, now).toMillis() / 1000.0);
            next.put(q, new Figures(q, n[0], n[1], n[2], n[3], age, false));
        });
        Set<String> added = new TreeSet<>(next.keySet());
        added.removeAll(figures.keySet());
        figures = Collections.unmodifiableMap(next);
        readAt = now;
        if (!added.isEmpty()) {
            Set<String> view = Collections.unmodifiableSet(added);
            listeners.forEach(l -> l.accept(view));
        }
    }

    /** @return the figures of the last run, by queue (empty before the first) */
    public Map<String, Figures> figures() {
        return figures;
    }

    /** @param queue a queue @return its figures as of the last run (zeros for a queue not seen yet) */
    public Figures figures(String queue) {
        Figures f = figures.get(queue);
        return f == null ? Figures.empty(queue) : f;
    }

    /** @return when the last successful run read the figures (the engine's clock), if one did */
    public Optional<Instant> readAt() {
        return Optional.ofNullable(readAt);
    }
}
