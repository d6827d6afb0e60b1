package io.gendurable.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that stands still until the test moves it: the engine of a test reads time only from
 * here (claims, leases, retry backoff, scheduled starts, await deadlines), so a test controls
 * time exactly. Thread-safe. It never moves backwards. A kit built on it fires its recurring
 * schedules on the way whenever it moves, as a node's schedules loop would (nothing else runs
 * until the test drains).
 */
public final class TestClock implements InstantSource {
    private final AtomicReference<Instant> now;
    private final java.util.List<Listener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Told before the clock moves (a kit fires its schedules on the way, as a node's loop would). */
    @FunctionalInterface
    interface Listener {
        /** @param from the instant now @param to the instant the clock is about to show */
        void passing(Instant from, Instant to);
    }

    void addListener(Listener l) {
        listeners.add(l);
    }

    void removeListener(Listener l) {
        listeners.remove(l);
    }

    /** Starts at the system's current instant, truncated to milliseconds (exact through the database). */
    public TestClock() {
        this(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    }

    /** @param start the first instant */
    public TestClock(Instant start) {
        this.now = new AtomicReference<>(Objects.requireNonNull(start, "start must not be null"));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    /**
     * Moves the clock forward by {@code by}.
     *
     * @param by zero or positive
     * @return the new instant
     * @throws IllegalArgumentException when {@code by} is negative
     * @throws DrainException           when a kit on this clock would fire more than a thousand schedule fire times on the way
     */
    public Instant advance(Duration by) {
        Objects.requireNonNull(by, "by must not be null");
        if (by.isNegative()) {
            throw new IllegalArgumentException("a test clock moves forward only; by must be zero or positive, got " + by);
        }
        return advanceTo(now.get().plus(by));
    }

    /**
     * Moves the clock to {@code to}, unless it is already past it.
     *
     * @param to the instant to reach
     * @return the clock's instant afterwards ({@code to}, or a later one it already showed)
     * @throws DrainException when a kit on this clock would fire more than a thousand schedule fire times on the way
     */
    public Instant advanceTo(Instant to) {
        Objects.requireNonNull(to, "to must not be null");
        Instant from = now.get();
        if (from.isBefore(to)) {
            listeners.forEach(l -> l.passing(from, to));
        }
        return now.updateAndGet(t -> t.isBefore(to) ? to : t);
    }

    @Override
    public String toString() {
        return "TestClock[" + now.get() + "]";
    }
}
