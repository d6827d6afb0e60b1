package io.gendurable;

import java.time.Duration;
import java.time.Instant;

/** Argument checks shared by the API records. */
final class Validation {
    /** The longest name (step, queue, fsm, keys) accepted. */
    static final int MAX_NAME_LENGTH = 255;

    private Validation() {
    }

    static String requireName(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " must not be null or blank");
        }
        if (value.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(field + " must be at most " + MAX_NAME_LENGTH
                    + " characters, got " + value.length());
        }
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(field + " must not contain a NUL character (PostgreSQL text cannot store it)");
        }
        return value;
    }

    /**
     * The longest delay, timeout or schedule offset accepted: anything longer is a unit mistake
     * (and past year 9999 PostgreSQL's timestamps stop where Java's continue).
     */
    static final Duration MAX_DELAY = Duration.ofDays(365L * 1000);

    /** The latest instant an instance may be scheduled at: the end of year 9999. */
    static final Instant MAX_INSTANT = Instant.parse("9999-12-31T23:59:59Z");

    /** The earliest instant an instance may be scheduled at: the start of year 1. */
    static final Instant MIN_INSTANT = Instant.parse("0001-01-01T00:00:00Z");

    static Duration maxDelay(String field, Duration value) {
        if (value != null && value.compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException(field + " must be at most 1,000 years (" + MAX_DELAY + "), got " + value);
        }
        return value;
    }

    /**
     * A step timeout: null (not set), zero (none), or from 1 ms (the engine's timer counts in
     * milliseconds) to {@link #MAX_DELAY}.
     */
    static java.time.Duration stepTimeout(String field, java.time.Duration value) {
        if (value != null && !value.isZero()
                && (value.isNegative() || value.compareTo(java.time.Duration.ofMillis(1)) < 0 || value.compareTo(MAX_DELAY) > 0)) {
            throw new IllegalArgumentException(field + " must be zero (no timeout) or a duration from 1 ms to 1,000 years, got "
                    + value);
        }
        return value;
    }

    /** Queue names travel in configuration lists ({@code name:concurrency,…}), so they keep to a safe alphabet. */
    static final java.util.regex.Pattern QUEUE = java.util.regex.Pattern.compile("[A-Za-z0-9_.\\-]{1,255}");

    static String optionalQueue(String value) {
        if (value == null) {
            return null;
        }
        requireName("queue", value);
        if (!QUEUE.matcher(value).matches()) {
            throw new IllegalArgumentException("queue must use only letters, digits, '_', '.' and '-' (as in "
                    + "gendurable.queues), got '" + value + "'");
        }
        return value;
    }

    static String optionalName(String field, String value) {
        return value == null ? null : requireName(field, value);
    }
}
