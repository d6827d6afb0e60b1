package io.gendurable;

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
