package io.gendurable.impl.engine;

import io.gendurable.impl.claim.PausedQueues;
import io.gendurable.impl.claim.Scheduler;
import io.gendurable.impl.gc.Gc;
import io.gendurable.impl.lease.Reaper;
import io.gendurable.impl.nodes.NodeBeacon;
import io.gendurable.impl.runtime.EngineEventBus;
import io.gendurable.impl.schedule.Schedules;

import java.util.List;

/**
 * The test kit's door into an engine: its background services, to run one sweep now or watch a
 * scheduler. {@code io.gendurable.testing} and the project's own tests use it; applications and
 * the container adapter do not ({@code ArchitectureTest} keeps it so), which is why these are not
 * methods of {@link Engine}.
 */
public final class EngineInternals {
    private EngineInternals() {
    }

    /** @param engine an engine @return its event bus (which event types are listened to, events pending) */
    public static EngineEventBus eventBus(Engine engine) {
        return engine.eventBus();
    }

    /** @param engine an engine @return its schedulers, one per configured queue */
    public static List<Scheduler> schedulers(Engine engine) {
        return engine.schedulers();
    }

    /** @param engine an engine @return its reaper (run a sweep with {@code runOnce}, {@code fireTimeouts}) */
    public static Reaper reaper(Engine engine) {
        return engine.reaper();
    }

    /**
     * @param engine an engine
     * @return how many {@code await} callers are parked on their future now: they have read their
     *         row (not yet settled) and wait for a wake-up or their deadline
     */
    public static int parkedAwaiters(Engine engine) {
        return engine.parkedAwaiters();
    }

    /** @param engine an engine @return its GC (run a sweep with {@code runOnce}, {@code reconcileGates}, …) */
    public static Gc gc(Engine engine) {
        return engine.gc();
    }

    /** @param engine an engine @return its recurring schedules (fire what is due now with {@code firer().runOnce()}) */
    public static Schedules schedules(Engine engine) {
        return engine.schedules();
    }

    /** @param engine an engine @return its node beacon (write one now with {@code beat}) */
    public static NodeBeacon beacon(Engine engine) {
        return engine.beacon();
    }

    /** @param engine an engine @return the backend pid of its PostgreSQL poke listener, or -1 when it has none */
    public static int pokeListenerPid(Engine engine) {
        return engine.pokeListenerPid();
    }

    /** @param engine a prepared, unstarted engine @return its synchronous claim/run seam */
    public static DrainRunner drainRunner(Engine engine) {
        return engine.drainRunner();
    }

    /** @param engine an engine @return its view of the paused queues (read them now with {@code refresh}) */
    public static PausedQueues pauses(Engine engine) {
        return engine.pauses();
    }
}
