package io.gendurable.impl.runtime;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * When each background iteration of one engine last began, succeeded and failed, by the name
 * {@link Loops#guarded} gives it ({@code "reaper"}, {@code "heartbeat of queue default"}, …):
 * what liveness reads ({@code impl.health}). Times are {@link System#nanoTime()} readings, never
 * the engine's clock, so a test clock cannot make a loop look stalled. Thread-safe; a recording
 * is two volatile writes.
 */
public final class LoopTicks {
    private final Map<String, Tick> ticks = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    /** Ticks on the system's monotonic clock. */
    public LoopTicks() {
        this(System::nanoTime);
    }

    /** @param nanoTime the monotonic clock (tests) */
    public LoopTicks(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** @return the monotonic clock these ticks are read on */
    public long now() {
        return nanoTime.getAsLong();
    }

    /** @param loop an iteration's name: it began now */
    public void began(String loop) {
        ticks.computeIfAbsent(loop, k -> new Tick()).began = nanoTime.getAsLong();
    }

    /** @param loop an iteration's name @param ok whether it returned (rather than threw): it ended now */
    public void ended(String loop, boolean ok) {
        Tick t = ticks.computeIfAbsent(loop, k -> new Tick());
        long now = nanoTime.getAsLong();
        if (ok) {
            t.succeeded = now;
        } else {
            t.failed = now;
        }
    }

    /** @param loop an iteration's name @return its last readings, if it ever began */
    public Optional<Snapshot> get(String loop) {
        Tick t = ticks.get(loop);
        return t == null ? Optional.empty() : Optional.of(t.snapshot());
    }

    /** @return every loop seen so far, by name */
    public Map<String, Snapshot> all() {
        Map<String, Snapshot> out = new TreeMap<>();
        ticks.forEach((k, v) -> out.put(k, v.snapshot()));
        return out;
    }

    /**
     * One loop's readings, {@link System#nanoTime()} based; {@code 0} = never.
     *
     * @param began     when its last iteration began
     * @param succeeded when an iteration last returned
     * @param failed    when an iteration last threw
     */
    public record Snapshot(long began, long succeeded, long failed) {
    }

    private static final class Tick {
        volatile long began;
        volatile long succeeded;
        volatile long failed;

        Snapshot snapshot() {
            return new Snapshot(began, succeeded, failed);
        }
    }
}
