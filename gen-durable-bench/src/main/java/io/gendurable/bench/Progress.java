package io.gendurable.bench;

import io.gendurable.impl.runtime.EngineEvents;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * Counts committed step outcomes (the engine calls {@link #stepFinished} after the flush that
 * made the outcome durable) and stamps when the count crosses 10 %, 90 % and 100 % of the
 * target: wall time to the last committed outcome, and a steady rate over the middle 80 %.
 * Also counts flushes and their sizes.
 */
public class Progress implements EngineEvents {
    private final Predicate<String> counts;
    private final AtomicLong count = new AtomicLong();
    private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    private final LongAdder staleSteps = new LongAdder();
    private final LongAdder flushNanos = new LongAdder();
    private final AtomicLong maxFlushOutcomes = new AtomicLong();
    private volatile long target = Long.MAX_VALUE;
    private volatile long mark10;
    private volatile long mark90;
    private volatile long t10;
    private volatile long t90;
    private volatile long tEnd;
    private volatile CountDownLatch done = new CountDownLatch(1);

    /** @param counts which outcome kinds count (next, done, await, …) */
    public Progress(Predicate<String> counts) {
        this.counts = counts;
    }

    /** Counts from zero towards {@code target}. Call before the engine starts working. */
    public void arm(long target) {
        count.set(0);
        this.target = target;
        this.mark10 = Math.max(1, target / 10);
        this.mark90 = Math.max(1, target - target / 10);
        t10 = t90 = tEnd = 0;
        done = new CountDownLatch(1);
    }

    @Override
    public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos,
                             String error, boolean stale) {
        outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
        if (stale) {
            staleSteps.increment();
            return;
        }
        if (counts.test(outcome)) {
            tick();
        }
    }

    /** Counts one completion (for callers that are not the engine, e.g. the db-scheduler baseline). */
    public void tick() {
        long c = count.incrementAndGet();
        long now = System.nanoTime();
        if (c == mark10) {
            t10 = now;
        }
        if (c == mark90) {
            t90 = now;
        }
        if (c == target) {
            tEnd = now;
            done.countDown();
        }
    }

    @Override
    public void flushed(int outcomes, long nanos) {
        flushNanos.add(nanos);
        maxFlushOutcomes.accumulateAndGet(outcomes, Math::max);
    }

    /**
     * Waits for the target, giving up when the count stops moving for {@code stallSeconds}.
     *
     * @return whether the target was reached
     */
    public boolean await(long stallSeconds) throws InterruptedException {
        long last = -1;
        long lastMove = System.nanoTime();
        while (!done.await(200, TimeUnit.MILLISECONDS)) {
            long c = count.get();
            if (c != last) {
                last = c;
                lastMove = System.nanoTime();
            } else if (System.nanoTime() - lastMove > TimeUnit.SECONDS.toNanos(stallSeconds)) {
                return false;
            }
        }
        return true;
    }

    public long count() {
        return count.get();
    }

    /** @return when the 10 % mark was crossed (System.nanoTime()) */
    public long t10() {
        return t10;
    }

    public long t90() {
        return t90;
    }

    public long tEnd() {
        return tEnd;
    }

    /** @return counted outcomes per second between the 10 % and 90 % marks */
    public double steadyRate() {
        long span = t90 - t10;
        return span <= 0 || t10 == 0 || t90 == 0 ? Double.NaN : (mark90 - mark10) * 1e9 / span;
    }

    /** @return every outcome kind seen, with its count (for spotting retries or stops) */
    public Map<String, Long> outcomes() {
        Map<String, Long> m = new java.util.TreeMap<>();
        outcomes.forEach((k, v) -> m.put(k, v.sum()));
        if (staleSteps.sum() > 0) {
            m.put("stale", staleSteps.sum());
        }
        return m;
    }

    /** @return total flush nanoseconds */
    public long flushNanos() {
        return flushNanos.sum();
    }

    public long maxFlushOutcomes() {
        return maxFlushOutcomes.get();
    }
}
