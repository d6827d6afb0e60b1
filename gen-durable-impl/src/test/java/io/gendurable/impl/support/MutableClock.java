package io.gendurable.impl.support;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock the test moves: the system time plus an offset. */
public final class MutableClock implements InstantSource {
    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

    /** @param d how far ahead of the system clock to run from now on */
    public void advance(Duration d) {
        offset.updateAndGet(o -> o.plus(d));
    }

    @Override
    public Instant instant() {
        return Instant.now().plus(offset.get());
    }
}
