package io.gendurable.admin;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/** Parses path segments and query parameters, failing with an {@link AdminProblem} (400) naming the field. */
final class Input {
    private static final int SHOWN = 80;

    private Input() {
    }

    /**
     * @param field the parameter's name
     * @param text  an instance id
     * @return it, 1 or more
     */
    static long id(String field, String text) {
        long id = wholeNumber(field, text);
        if (id < 1) {
            throw AdminProblem.invalidInput(field + " must be an instance id (1 or more), got " + id);
        }
        return id;
    }

    /**
     * @param field the parameter's name
     * @param text  a whole number
     * @return it
     */
    static long wholeNumber(String field, String text) {
        try {
            return Long.parseLong(text == null ? "" : text.strip());
        } catch (NumberFormatException e) {
            throw AdminProblem.invalidInput(field + " must be a whole number, got " + shown(text));
        }
    }

    /**
     * @param field the parameter's name
     * @param text  a whole number in the int range
     * @return it
     */
    static int intNumber(String field, String text) {
        long n = wholeNumber(field, text);
        if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
            throw AdminProblem.invalidInput(field + " is out of range, got " + n);
        }
        return (int) n;
    }

    /**
     * @param field the parameter's name
     * @param text  an ISO-8601 instant with an offset ({@code 2026-05-01T12:00:00Z},
     *              {@code 2026-05-01T14:00:00+02:00})
     * @return it
     */
    static Instant instant(String field, String text) {
        try {
            return OffsetDateTime.parse(text.strip()).toInstant();
        } catch (DateTimeParseException e) {
            throw AdminProblem.invalidInput(field + " must be an ISO-8601 instant with an offset, e.g. 2026-05-01T12:00:00Z, got "
                    + shown(text));
        }
    }

    /** @return the text quoted and cut short for a message */
    static String shown(String text) {
        if (text == null) {
            return "nothing";
        }
        return "'" + (text.length() > SHOWN ? text.substring(0, SHOWN) + "…" : text) + "'";
    }
}
