package io.gendurable.impl.runtime;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/** The catch-log-count guard around every background iteration: one failure never kills a loop. */
public final class Loops {
    private static final Logger LOG = System.getLogger("io.gendurable");

    private Loops() {
    }

    public static void guarded(String what, EngineMetrics metrics, Runnable body) {
        try {
            body.run();
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError) {
                throw e;
            }
            metrics.loopErrors.increment();
            LOG.log(Level.WARNING, "gen-durable " + what + " failed; it will run again: " + e, e);
        }
    }
}
