package io.gendurable;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** The default retry delays of {@link Fsm#onError}. */
public final class Backoff {
    private static final long BASE_MILLIS = 1_000;
    private static final long MAX_MILLIS = Duration.ofHours(1).toMillis();

    private Backoff() {
    }

    /**
     * Exponential backoff with 10% jitter: 1 s after the first attempt, 2 s, 4 s, … capped at one hour.
     *
     * @param attempt the attempt that failed, 1 for the first
     * @return the delay before the next attempt
     */
    public static Duration exponential(int attempt) {
        int exponent = Math.max(0, Math.min(attempt - 1, 30));
        long millis = Math.min(MAX_MILLIS, BASE_MILLIS << exponent);
        long jitter = ThreadLocalRandom.current().nextLong(millis / 10 + 1);
        return Duration.ofMillis(millis + jitter);
    }

    /**
     * @param error a failure
     * @return its class name and message, as stored in {@code last_error}
     */
    public static String describe(Throwable error) {
        String message = error.getMessage();
        return message == null ? error.getClass().getName() : error.getClass().getName() + ": " + message;
    }
}
