package io.gendurable.impl.runtime;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** A background loop on the engine's timer: a fixed delay between runs, idempotent start and stop. */
public final class Periodic {
    private final ScheduledExecutorService timer;
    private final Duration every;
    private final Runnable body;
    private ScheduledFuture<?> loop;

    /** @param body one iteration; guard it ({@link Loops#guarded}) so a failure never ends the loop */
    public Periodic(ScheduledExecutorService timer, Duration every, Runnable body) {
        this.timer = timer;
        this.every = every;
        this.body = body;
    }

    public synchronized void start() {
        if (loop == null) {
            long us = Math.max(1, every.toNanos() / 1000);
            loop = timer.scheduleWithFixedDelay(body, us, us, TimeUnit.MICROSECONDS);
        }
    }

    public synchronized void stop() {
        if (loop != null) {
            loop.cancel(false);
            loop = null;
        }
    }
}
