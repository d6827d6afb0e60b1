package io.gendurable.impl.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** Parses configuration durations: ISO-8601 ({@code PT60S}, {@code P1D}) or plain milliseconds. */
public final class Durations {
    private Durations() {
    }

    /**
     * @param key   the configuration key, for the message
     * @param value the text
     * @return the duration
     * @throws ConfigException naming the key, the value and the accepted forms
     */
    public static Duration parse(String key, String value) {
        String v = value.trim();
        Duration d;
        try {
            if (v.chars().allMatch(Character::isDigit) && !v.isEmpty()) {
                d = Duration.ofMillis(Long.parseLong(v));
            } else {
                d = Duration.parse(v.toUpperCase(Locale.ROOT));
            }
        } catch (DateTimeParseException | NumberFormatException | ArithmeticException e) {
            throw new ConfigException(key, value, "an ISO-8601 duration (PT60S, PT0.5S, P1D) or milliseconds (60000)");
        }
        if (d.compareTo(MAX) > 0) {
            // a unit mistake; also, the engine counts some durations in milliseconds and nanoseconds
            throw new ConfigException(key, value, "a duration of at most 1,000 years (" + MAX + ")");
        }
        return d;
    }

    /** The longest configurable duration. */
    public static final Duration MAX = Duration.ofDays(365L * 1000);
}
