package io.gendurable.impl.nodes;

import io.gendurable.StepTiming;
import io.gendurable.ThroughputPoint;
import io.gendurable.impl.runtime.EngineEvents;
import java.util.Arrays;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.PackedHistogram;
import org.HdrHistogram.Recorder;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What this node did recently, for its beacon: committed {@code done} and {@code stop} outcomes per
 * queue per minute over the last {@value #MINUTES} minutes, and the durations of its steps per FSM
 * and step over the last {@value #TIMING_MINUTES} minutes.
 *
 * <p>Fed on the step threads, after each outcome's flush ({@link #stepFinished}): the hot path.
 * An outcome costs two map lookups and an atomic increment in a fixed ring per queue (no
 * allocation once the queue is known), and one {@link Recorder#recordValue} per step (HdrHistogram's
 * wait-free recorder). The beacon's thread does the rest ({@link #throughput}, {@link #timings}):
 * it swaps each recorder's interval histogram into a per-minute ring and sums the window.
 * Percentiles come from HdrHistogram, two significant digits, in microseconds.
 */
public final class NodeActivity implements EngineEvents {
    /** The throughput ring's length in minutes. */
    public static final int MINUTES = 60;
    /** The step timings' window in minutes. */
    public static final int TIMING_MINUTES = 10;
    private static final long MINUTE_MS = 60_000L;

    private final InstantSource clock;
    private final Map<String, QueueRing> rings = new ConcurrentHashMap<>();
    private final Map<String, Map<String, StepRecorder>> recorders = new ConcurrentHashMap<>();

    /** @param clock the engine's clock (minutes are counted on it) */
    public NodeActivity(InstantSource clock) {
        this.clock = clock;
    }

    @Override
    public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos, String error,
                             boolean stale) {
        Map<String, StepRecorder> steps = recorders.get(fsm);
        if (steps == null) {
            steps = recorders.computeIfAbsent(fsm, f -> new ConcurrentHashMap<>());
        }
        StepRecorder r = steps.get(step);
        if (r == null) {
            r = steps.computeIfAbsent(step, s -> new StepRecorder());
        }
        r.recorder.recordValue(Math.max(0, nanos / 1000));
        if (stale) {
            return;  // nothing committed
        }
        int which = switch (outcome) {
            case "done" -> 0;
            case "stop" -> 1;
            default -> -1;
        };
        if (which >= 0) {
            QueueRing ring = rings.get(queue);
            if (ring == null) {
                ring = rings.computeIfAbsent(queue, QueueRing::new);
            }
            ring.add(Math.floorDiv(clock.millis(), MINUTE_MS), which);
        }
    }

    /**
     * @param now the reading instant
     * @return the done and failed outcomes per queue per minute over the last {@value #MINUTES}
     * minutes (the current one included), minutes with neither left out, by queue then minute
     */
    public List<ThroughputPoint> throughput(Instant now) {
        long current = Math.floorDiv(now.toEpochMilli(), MINUTE_MS);
        List<ThroughputPoint> out = new ArrayList<>();
        for (QueueRing ring : rings.values()) {
            ring.collect(current, out);
        }
        out.sort(Comparator.comparing(ThroughputPoint::queue).thenComparing(ThroughputPoint::minute));
        return out;
    }

    /**
     * Moves what the recorders took since the last call into the current minute, then sums the
     * window. Called by one thread at a time (the beacon's).
     *
     * @param now the reading instant
     * @return per FSM and step with a step in the window: count, p50, p90, p99, max; by FSM then step
     */
    public synchronized List<StepTiming> timings(Instant now) {
        long current = Math.floorDiv(now.toEpochMilli(), MINUTE_MS);
        List<StepTiming> out = new ArrayList<>();
        recorders.forEach((fsm, steps) -> steps.forEach((step, r) -> {
            Histogram window = r.roll(current);
            if (window.getTotalCount() > 0) {
                out.add(new StepTiming(fsm, step, window.getTotalCount(), micros(window.getValueAtPercentile(50)),
                        micros(window.getValueAtPercentile(90)), micros(window.getValueAtPercentile(99)),
                        micros(window.getMaxValue())));
            }
        }));
        out.sort(Comparator.comparing(StepTiming::fsm).thenComparing(StepTiming::step));
        return out;
    }

    private static Duration micros(long us) {
        return Duration.ofNanos(us * 1000);
    }

    /** One queue's outcomes: a slot per minute of the hour, stamped with its minute, reset when a new minute takes it. */
    private static final class QueueRing {
        private final String queue;
        private final AtomicLongArray minutes = new AtomicLongArray(MINUTES);
        /** slot * 2: done; slot * 2 + 1: failed */
        private final AtomicLongArray counts = new AtomicLongArray(MINUTES * 2);

        QueueRing(String queue) {
            this.queue = queue;
            for (int i = 0; i < MINUTES; i++) {
                minutes.set(i, Long.MIN_VALUE);
            }
        }

        void add(long minute, int which) {
            int slot = (int) Math.floorMod(minute, MINUTES);
            if (minutes.get(slot) != minute) {
                take(slot, minute);
            }
            counts.incrementAndGet(slot * 2 + which);
        }

        /** Once per slot per minute: a later minute takes the slot over (an outcome racing the reset may land either side). */
        private synchronized void take(int slot, long minute) {
            if (minutes.get(slot) < minute) {
                counts.set(slot * 2, 0);
                counts.set(slot * 2 + 1, 0);
                minutes.set(slot, minute);
            }
        }

        void collect(long current, List<ThroughputPoint> out) {
            for (int slot = 0; slot < MINUTES; slot++) {
                long m = minutes.get(slot);
                if (m > current - MINUTES && m <= current) {
                    long done = counts.get(slot * 2);
                    long failed = counts.get(slot * 2 + 1);
                    if (done > 0 || failed > 0) {
                        out.add(new ThroughputPoint(queue, Instant.ofEpochMilli(m * MINUTE_MS), done, failed));
                    }
                }
            }
        }
    }

    /** One (FSM, step): the recorder the step threads write, and the minutes of the window (beacon thread only). */
    private static final class StepRecorder {
        final Recorder recorder = new Recorder(2);
        private final long[] minutes = new long[TIMING_MINUTES];
        private final PackedHistogram[] slots = new PackedHistogram[TIMING_MINUTES];
        private Histogram interval;

        StepRecorder() {
            Arrays.fill(minutes, Long.MIN_VALUE);
        }

        /** @return the window's histogram, after moving the recorder's interval into {@code current}'s slot */
        Histogram roll(long current) {
            interval = recorder.getIntervalHistogram(interval);
            int slot = (int) Math.floorMod(current, TIMING_MINUTES);
            if (minutes[slot] != current || slots[slot] == null) {
                slots[slot] = new PackedHistogram(2);
                minutes[slot] = current;
            }
            if (interval.getTotalCount() > 0) {
                slots[slot].add(interval);
            }
            Histogram window = new Histogram(2);
            for (int i = 0; i < TIMING_MINUTES; i++) {
                if (slots[i] != null && minutes[i] > current - TIMING_MINUTES && minutes[i] <= current) {
                    window.add(slots[i]);
                }
            }
            return window;
        }
    }
}
