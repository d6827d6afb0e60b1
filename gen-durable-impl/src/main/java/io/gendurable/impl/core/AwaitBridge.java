package io.gendurable.impl.core;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Status;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;

/**
 * The sync-over-async bridge: waits for an instance to settle without holding a database
 * connection or a transaction (the caller parks on a future). Same-node commits wake it at
 * once; other nodes' commits are found by the {@link AwaitWatcher}'s per-tick probe. The
 * answer is always read from the row.
 */
final class AwaitBridge {
    private final Awaiters awaiters;
    private final LongFunction<Optional<InstanceSnapshot>> find;

    AwaitBridge(Awaiters awaiters, LongFunction<Optional<InstanceSnapshot>> find) {
        this.awaiters = awaiters;
        this.find = find;
    }

    AwaitResult await(long id, Duration timeout, AwaitUntil until) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        Objects.requireNonNull(until, "until must not be null; accepted: SETTLED, TERMINAL");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, got " + timeout);
        }
        // Duration.toNanos overflows past ~292 years: such a timeout means "as long as it takes".
        long cap = Long.MAX_VALUE / 4;
        long deadline = System.nanoTime() + (timeout.compareTo(Duration.ofNanos(cap)) > 0 ? cap : timeout.toNanos());
        while (true) {
            // Register before reading: a commit between the read and the wait still wakes us.
            Awaiters.Waiter w = awaiters.register(id, until);
            try {
                Optional<InstanceSnapshot> row = find.apply(id);
                if (row.isEmpty()) {
                    return new AwaitResult.NotFound(id);
                }
                InstanceSnapshot s = row.get();
                if (Awaiters.satisfies(s.status().dbName(), until)) {
                    return answer(s);
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return new AwaitResult.Busy(s);
                }
                try {
                    w.changed.get(remaining, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    // loop: read once more, then answer Busy
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new AwaitResult.Busy(s);
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e.getCause());
                }
            } finally {
                awaiters.unregister(w);
            }
        }
    }

    private static AwaitResult answer(InstanceSnapshot s) {
        if (s.status() == Status.DONE) {
            return new AwaitResult.Done(s.id(), s.result());
        }
        if (s.status() == Status.FAILED) {
            return new AwaitResult.Failed(s.id(), s.lastError());
        }
        return new AwaitResult.Awaiting(s);
    }
}
