package io.gendurable.admin.requests;

import io.gendurable.admin.problems.AdminProblem;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/** Parses path segments and query parameters, failing with an {@link AdminProblem} (400) naming the field. */
public final class Input {
    private static final int SHOWN = 80;

    private Input() {
    }

    /**
     * @param field the parameter's name
     * @param text  an instance id
     * @return it, 1 or more
     */
    public static long id(String field, String text) {
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

    /**
     * An operator's text (a reason, a step, a signal's name, a key, a queue's or a schedule's
     * name), which ends up in log lines and in the console: control characters (line breaks, tabs,
     * escape sequences, the C1 controls), line and paragraph separators and the bidirectional
     * overrides are refused, so that no value can start a line of its own or disguise itself.
     *
     * @param field the field's name
     * @param text  the text, or null
     * @return it
     * @throws AdminProblem (400) naming the field and the character's position
     */
    public static String text(String field, String text) {
        if (text == null) {
            return null;
        }
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            if (refused(c)) {
                throw AdminProblem.invalidInput(field + " must not contain control characters (line breaks, tabs, "
                        + "escapes, bidirectional overrides), got U+" + String.format("%04X", c) + " at position " + (i + 1));
            }
            i += Character.charCount(c);
        }
        return text;
    }

    private static boolean refused(int c) {
        int type = Character.getType(c);
        return type == Character.CONTROL || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
                || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F
                || c == 0x061C;
    }

    /**
     * @param text what a request gave, or null
     * @return the text quoted and cut short for a message, every character {@link #text} refuses
     * shown as a backslash, u and its four hex digits
     */
    public static String shown(String text) {
        if (text == null) {
            return "nothing";
        }
        String cut = text.length() > SHOWN ? text.substring(0, SHOWN) + "…" : text;
        StringBuilder b = new StringBuilder(cut.length() + 2).append('\'');
        cut.codePoints().forEach(c -> {
            if (refused(c)) {
                b.append(String.format("\\u%04X", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.append('\'').toString();
    }
}
