package io.gendurable.sample;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The checks on the REST endpoints' path, query, header and body input, kept apart from JAX-RS
 * so they run before any engine call and can be tested alone. Each answers the message of a
 * 400, or null when the input is fine.
 */
final class OrderInput {
    /** Order ids, accounts and signal names. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    /** Instance ids: a positive number that fits a long. */
    static final Pattern ID = Pattern.compile("[0-9]{1,18}");
    /** Idempotency keys: visible ASCII, as the engine's 255-character dedup keys. */
    static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");
    /** The largest signal body accepted, far below the engine's own payload limit. */
    static final int MAX_BODY_CHARS = 64 * 1024;
    /** The longest {@code wait} of a read. */
    static final Duration MAX_WAIT = Duration.ofSeconds(30);

    private OrderInput() {
    }

    static String name(String field, String value) {
        return value != null && NAME.matcher(value).matches() ? null : field + " must match " + NAME.pattern();
    }

    static String parcels(String value) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            n = 0;
        }
        return n >= 1 && n <= 20 ? null : "parcels must be a number from 1 to 20";
    }

    static String id(String value) {
        return value != null && ID.matcher(value).matches() ? null : "id must be a positive number, got '" + value + "'";
    }

    static String idempotencyKey(String value) {
        return value == null || value.isEmpty() || IDEMPOTENCY_KEY.matcher(value).matches() ? null
                : "Idempotency-Key must be 1 to 255 visible ASCII characters";
    }

    static String body(String value) {
        return value == null || value.length() <= MAX_BODY_CHARS ? null
                : "the body must be at most " + MAX_BODY_CHARS + " characters";
    }

    /** @return the wait, or null when {@code value} is not an ISO-8601 duration from PT0S to {@link #MAX_WAIT} */
    static Duration waitOrNull(String value) {
        try {
            Duration d = Duration.parse(value);
            return d.isNegative() || d.compareTo(MAX_WAIT) > 0 ? null : d;
        } catch (DateTimeParseException | NullPointerException e) {
            return null;
        }
    }

    static String waitError(String value) {
        return "wait must be an ISO-8601 duration from PT0S to " + MAX_WAIT + ", such as PT5S";
    }

    static String until(String value) {
        String v = value == null ? "" : value.toLowerCase(Locale.ROOT);
        return v.equals("terminal") || v.equals("settled") ? null : "until must be terminal or settled";
    }
}
