package io.gendurable.impl.engine;

import io.gendurable.impl.claim.Scheduler;
import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.flush.Flusher;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;

/**
 * Starts and stops an engine's parts ({@link EngineServices}) in order: {@link #start()} migrates
 * (unless disabled) and starts the schedulers, flushers, reaper and GC; {@link #stop()} drains.
 * Both are idempotent, under one lock.
 */
final class EngineLifecycle {
    private static final Logger LOG = System.getLogger("io.gendurable.engine");
    /** How long the event listeners may take, at stop, to receive the events already queued. */
    private static final Duration EVENTS_CLOSE_WAIT = Duration.ofSeconds(2);

    private final EngineServices s;
    private final Object lifecycle = new Object();
    private boolean prepared;

    EngineLifecycle(EngineServices services) {
        this.s = services;
    }

    /** Migrates (unless {@code migrate-at-start=false}) and starts every background service. Idempotent. */
    void start() {
        synchronized (lifecycle) {
            if (!mayStart(s.started)) {
                return;
            }
            prepare();
            s.unservedQueues().forEach((queue, fsms) -> LOG.log(Level.WARNING, "gen-durable: FSMs " + fsms
                    + " default to queue '" + queue + "', which this node does not serve (gendurable.queues = "
                    + s.config.node().queues().keySet() + "): their instances run only on a node that serves it"));
            s.pauses.start();  // before the schedulers: a paused queue's prefetch is never dispatched
            for (Scheduler q : s.schedulers) {
                s.localPoke.register(q);
                q.start();
            }
            if (s.config.reaper().enabled()) {
                s.reaper.start();
            } else {
                LOG.log(Level.WARNING, "gen-durable: this node runs no reaper (gendurable.reaper.enabled=false): lapsed"
                        + " claims are taken back only by nodes that run one (readiness names it when no live node does)");
            }
            if (s.config.gc().enabled()) {
                s.gc.start();
            } else {
                LOG.log(Level.WARNING, "gen-durable: this node runs no GC (gendurable.gc.enabled=false): ended instances"
                        + " are deleted only by nodes that run one (readiness names it when no live node does)");
            }
            s.awaitWatcher.start();
            if (s.postgresPoke != null) {
                s.postgresPoke.start();
            }
            if (s.redis != null) {
                s.redis.start();
            }
            if (s.config.gauges().enabled()) {
                s.gauges.start();
            }
            if (s.config.schedules().enabled()) {
                s.schedules.firer().start();
            }
            s.beacon.start();
            s.startedAt = System.nanoTime();
            s.started = true;
        }
    }

    /**
     * What {@link #start()} does first, and only that: migrates (unless {@code migrate-at-start=false})
     * and seeds the limits, starting no background service. An engine driven only through its
     * {@link DrainRunner} (users' tests, through {@code io.gendurable.testing}) is prepared, never started. Idempotent.
     */
    void prepare() {
        synchronized (lifecycle) {
            if (!mayStart(prepared)) {
                return;
            }
            LOG.log(Level.INFO, "gen-durable starting: " + s.config.describe() + " fsms=" + s.registry.describe());
            if (s.config.schema().migrateAtStart()) {
                int applied = Migrations.migrate(s.sessionDataSource, s.schema);
                LOG.log(Level.INFO, "gen-durable schema " + s.schema.name() + ": " + applied + " migrations applied");
            }
            s.limitsSeeder.seed();
            s.schedules.seed();
            prepared = true;
        }
    }

    /** @return whether a start (or prepare) has work to do: false when {@code done} already; never after a stop */
    private boolean mayStart(boolean done) {
        if (done) {
            return false;
        }
        if (s.stopped) {
            throw new IllegalStateException("a stopped engine cannot start again; build a new one");
        }
        return true;
    }

    /**
     * Graceful drain: stop claiming, release buffered claims, wait {@code drain-timeout} for running
     * steps, flush their outcomes, stop the sweeps, wake the {@code await} callers (they answer
     * {@code Busy} with their last snapshot), close the persistence unit. Idempotent.
     */
    void stop() {
        synchronized (lifecycle) {
            if (s.stopped) {
                return;
            }
            s.stopped = true;
            s.reaper.stop();
            s.gc.stop();
            s.gauges.stop();
            s.schedules.firer().stop();
            if (s.postgresPoke != null) {
                s.postgresPoke.stop();
            }
            long deadline = System.nanoTime() + s.config.drain().timeout().toNanos();
            for (Scheduler q : s.schedulers) {
                s.localPoke.unregister(q);
                q.beginStop(deadline);
            }
            for (Scheduler q : s.schedulers) {
                q.finishStop(deadline);
            }
            for (Flusher f : s.flushers) {
                f.stop(s.config.drain().timeout());
            }
            s.pauses.stop();
            s.awaitWatcher.stop();
            if (s.started) {
                s.beacon.stop();  // deletes this node's row: it is gone at once, not after its retention
            }
            s.awaitBridge.close();  // callers answer Busy with their last snapshot, never a closed-factory error
            if (s.redis != null) {
                s.redis.stop();
            }
            s.db.close();
            s.probes.shutdownNow();
            s.bus.close(EVENTS_CLOSE_WAIT);
            LOG.log(Level.INFO, "gen-durable stopped");
        }
    }
}
