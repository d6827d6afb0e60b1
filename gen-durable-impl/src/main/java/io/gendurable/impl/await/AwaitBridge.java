package io.gendurable.impl.await;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.EngineStoppedException;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Status;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;

/**
 * The sync-over-async bridge: waits for an instance to settle without holding a database
 * connection or a transaction (the caller parks on a future). Same-node commits wake it at
 * once; other nodes' commits are found by the {@link AwaitWatcher}'s per-tick probe. The
 * answer is always read from the row.
 *
 * <p>When the engine stops, {@link #close()} wakes every caller before the persistence unit
 * closes: each reads its row once more if it still can and answers (a result, or {@code Busy}
 * with the last snapshot it read); a read that fails because the unit closed meanwhile also
 * answers {@code Busy} with the last snapshot. Only a caller that never read its row (the engine
 * stopped before or during its first read) gets {@link EngineStoppedException}.
 */
public final class AwaitBridge {
    private final Awaiters awaiters;
    private final LongFunction<Optional<InstanceSnapshot>> find;
    private volatile boolean closed;
    /** Callers parked on their future right now (between their read and their wake-up); see {@link #parked()}. */
    private final AtomicInteger parked = new AtomicInteger();

    public AwaitBridge(Awaiters awaiters, LongFunction<Optional<InstanceSnapshot>> find) {
        this.awaiters = awaiters;
        this.find = find;
    }

    public AwaitResult await(long id, Duration timeout, AwaitUntil until) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        Objects.requireNonNull(until, "until must not be null; accepted: SETTLED, TERMINAL");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, got " + timeout);
        }
        // Duration.toNanos overflows past ~292 years: such a timeout means "as long as it takes".
        long cap = Long.MAX_VALUE / 4;
        long deadline = System.nanoTime() + (timeout.compareTo(Duration.ofNanos(cap)) > 0 ? cap : timeout.toNanos());
        InstanceSnapshot last = null;
        while (true) {
            if (closed) {
                return stopped(id, last);
            }
            // Register before reading: a commit between the read and the wait still wakes us,
            // and so does close() (it sets the flag before it wakes the registered).
            Awaiters.Waiter w = awaiters.register(id, until);
            try {
                Optional<InstanceSnapshot> row;
                try {
                    row = find.apply(id);
                } catch (RuntimeException e) {
                    if (closed) {
                        return stopped(id, last);  // the persistence unit closed under the read
                    }
                    throw e;
                }
                if (row.isEmpty()) {
                    return new AwaitResult.NotFound(id);
                }
                InstanceSnapshot s = row.get();
                last = s;
                if (Awaiters.satisfies(s.status().dbName(), until)) {
                    return answer(s);
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0 || closed) {
                    return new AwaitResult.Busy(s);
                }
                parked.incrementAndGet();
                try {
                    w.changed.get(remaining, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    // loop: read once more, then answer Busy
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new AwaitResult.Busy(s);
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e.getCause());
                } finally {
                    parked.decrementAndGet();
                }
            } finally {
                awaiters.unregister(w);
            }
        }
    }

    /**
     * How many callers are parked on their future now: each has registered, read its row (not yet
     * settled) and waits for a wake-up or its deadline. Observation only (tests use it, through
     * {@code EngineInternals.parkedAwaiters}, to know a caller is parked instead of sleeping).
     *
     * @return the number of callers parked now
     */
    public int parked() {
        return parked.get();
    }

    /**
     * The engine is stopping: from now on every caller answers at once, and callers parked now
     * are woken to read their row a last time. Call before the persistence unit closes.
     */
    public void close() {
        closed = true;
        awaiters.wakeAll();
    }

    private static AwaitResult stopped(long id, InstanceSnapshot last) {
        if (last != null) {
            return new AwaitResult.Busy(last);
        }
        throw new EngineStoppedException("cannot await instance " + id
                + ": the gen-durable engine has stopped (the application is stopping) before the row could be read;"
                + " ask again on a running node, the instance is not affected");
    }

    private static AwaitResult answer(InstanceSnapshot s) {
        if (s.status() == Status.DONE) {
            return new AwaitResult.Done(s.id(), s.result());
        }
        if (s.status() == Status.FAILED) {
            return new AwaitResult.Failed(s.id(), s.lastError());
        }
        if (s.status() == Status.CANCELLED) {
            return new AwaitResult.Cancelled(s.id(), s.lastError());
        }
        return new AwaitResult.Awaiting(s);
    }
}
