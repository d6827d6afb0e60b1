package io.gendurable.impl.ops;

import io.gendurable.InstanceQuery.Order;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A page's {@code nextCursor}: the order it was issued for and the last id of the page, as
 * base64url text ({@code v1:N:<id>} or {@code v1:O:<id>}). Opaque to users; checked on the way in.
 */
final class Cursor {
    private static final String VERSION = "v1";

    private Cursor() {
    }

    static String encode(Order order, long lastId) {
        String plain = VERSION + ":" + tag(order) + ":" + lastId;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * @return the last id of the page the cursor ends
     * @throws IllegalArgumentException when the text is not a cursor, or one of the other order
     */
    static long decode(String cursor, Order order) {
        String plain;
        try {
            plain = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.US_ASCII);
        } catch (IllegalArgumentException e) {
            throw notACursor(cursor);
        }
        String[] parts = plain.split(":", -1);
        if (parts.length != 3 || !parts[0].equals(VERSION) || !(parts[1].equals("N") || parts[1].equals("O"))) {
            throw notACursor(cursor);
        }
        long id;
        try {
            id = Long.parseLong(parts[2]);
        } catch (NumberFormatException e) {
            throw notACursor(cursor);
        }
        if (id < 0) {
            throw notACursor(cursor);
        }
        if (!parts[1].equals(tag(order))) {
            throw new IllegalArgumentException("cursor was issued for order " + (parts[1].equals("N") ? Order.NEWEST_FIRST
                    : Order.OLDEST_FIRST) + ", but the query asks for " + order + ": page on with the order of the first page");
        }
        return id;
    }

    private static String tag(Order order) {
        return order == Order.NEWEST_FIRST ? "N" : "O";
    }

    private static IllegalArgumentException notACursor(String cursor) {
        return new IllegalArgumentException("cursor is not a nextCursor this engine issued: '" + cursor + "'");
    }
}
