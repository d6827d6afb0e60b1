package io.gendurable.bench.server;

import io.gendurable.impl.runtime.EngineMetrics;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Times a run from {@link #arm} until the engine has committed {@code target} more outcomes (its
 * {@code flushedOutcomes} counter, as the plain-Java bench's {@code jobs-cdi} reads it), on a thread
 * of its own that polls every 0.5 ms while armed: the harness's own waiting takes no thread of the
 * server's pool. It records when 10 %, 90 % and all of the target were reached.
 */
@ApplicationScoped
public class Watch {
    private EngineMetrics metrics;
    private long base;
    private long target;
    private volatile long t0;
    private volatile long t10;
    private volatile long t90;
    private volatile long tEnd;
    private volatile boolean armed;
    private Thread thread;

    /** Arms the watch: counting starts now, from the counter's current value. */
    synchronized void arm(EngineMetrics m, long target) {
        this.metrics = m;
        this.base = m.flushedOutcomes.sum();
        this.target = target;
        t10 = 0;
        t90 = 0;
        tEnd = 0;
        t0 = System.nanoTime();
        armed = true;
        if (thread == null) {
            thread = new Thread(this::loop, "bench-watch");
            thread.setDaemon(true);
            thread.start();
        }
        notifyAll();
    }

    private void loop() {
        while (!Thread.currentThread().isInterrupted()) {
            synchronized (this) {
                while (!armed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            long now = System.nanoTime();
            long c = metrics.flushedOutcomes.sum() - base;
            if (t10 == 0 && c * 10 >= target) {
                t10 = now;
            }
            if (t90 == 0 && c * 10 >= target * 9) {
                t90 = now;
            }
            if (c >= target) {
                tEnd = now;
                armed = false;
            }
            LockSupport.parkNanos(500_000);
        }
    }

    /** @return the run so far: outcomes counted, whether the target was reached, its times */
    synchronized Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        long c = metrics == null ? 0 : metrics.flushedOutcomes.sum() - base;
        long end = tEnd != 0 ? tEnd : System.nanoTime();
        double seconds = (end - t0) / 1e9;
        m.put("counted", Math.min(c, target));
        m.put("target", target);
        m.put("done", tEnd != 0);
        m.put("seconds", seconds);
        m.put("per_s", (tEnd != 0 ? target : c) / seconds);
        m.put("first_10pct_s", t10 == 0 ? null : (t10 - t0) / 1e9);
        m.put("steady_per_s", t10 != 0 && t90 != 0 && t90 > t10 ? 0.8 * target / ((t90 - t10) / 1e9) : null);
        return m;
    }

    @PreDestroy
    synchronized void stop() {
        if (thread != null) {
            thread.interrupt();
        }
    }
}
