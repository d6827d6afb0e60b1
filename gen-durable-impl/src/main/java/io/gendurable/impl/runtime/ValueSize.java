package io.gendurable.impl.runtime;

/**
 * The size limit on JSON values (states, results, signal payloads): one instance must not bloat
 * every claim, flush and snapshot that carries it. Measured in UTF-8 bytes, as PostgreSQL stores
 * them, without building the byte array.
 */
public final class ValueSize {
    private final int maxBytes;

    /** @param maxBytes the limit ({@code gendurable.max-value-bytes}) */
    public ValueSize(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    /**
     * @param what a description for the message ("the state of a new 'order'")
     * @param json the serialized value, or null
     * @throws IllegalArgumentException naming the size, the limit and its key
     */
    public void check(String what, String json) {
        if (json == null || json.length() <= maxBytes / 3) {
            return;  // three bytes per char at most (a surrogate pair is four bytes for two chars)
        }
        long bytes = utf8Length(json);
        if (bytes > maxBytes) {
            throw new IllegalArgumentException(what + " is " + bytes + " bytes as JSON; the limit is " + maxBytes
                    + " (gendurable.max-value-bytes)");
        }
    }

    static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
