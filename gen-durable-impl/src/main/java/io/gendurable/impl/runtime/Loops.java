package io.gendurable.impl.runtime;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * The catch-log-count guard around every background iteration: one failure never kills a loop.
 * It also stamps each iteration's start and end in {@link EngineMetrics#loops}, by its name,
 * which liveness reads.
 */
public final class Loops {
    private Loops() {
    }

    /**
     * @param log     the component's logger (its category: {@code io.gendurable.claim}, {@code …lease}, …)
     * @param what    the iteration, for the message ("heartbeat of queue default") and its {@link LoopTicks} name
     * @param metrics counts the failure in {@code loopErrors}
     * @param body    one iteration
     */
    public static void guarded(Logger log, String what, EngineMetrics metrics, Runnable body) {
        metrics.loops.began(what);
        boolean ok = false;
        try {
            body.run();
            ok = true;
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError) {
                throw e;
            }
            metrics.loopErrors.increment();
            log.log(Level.WARNING, "gen-durable " + what + " failed; it will run again: " + e, e);
        } finally {
            metrics.loops.ended(what, ok);
        }
    }
}
