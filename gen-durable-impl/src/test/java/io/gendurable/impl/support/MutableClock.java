package io.gendurable.impl.support;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that stands still until a test moves it (thread-safe). */
public final class MutableClock implements InstantSource {
    private final AtomicReference<Instant> now;

    /** Starts at the system's now, truncated to milliseconds (so database round trips are exact). */
    public MutableClock() {
        this(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    }

    public MutableClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    /** Moves the clock to {@code to}. */
    public void set(Instant to) {
        now.set(to);
    }

    /** Moves the clock forward by {@code by}. */
    public Instant advance(Duration by) {
        return now.updateAndGet(t -> t.plus(by));
    }
}
