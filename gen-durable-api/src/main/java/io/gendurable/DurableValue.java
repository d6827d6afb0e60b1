package io.gendurable;

/** A JSON value read from the database: the text, and a typed view through JSON-B. */
public interface DurableValue {

    /** @return the JSON text as stored (never null; a JSON {@code null} is the text {@code null}) */
    String json();

    /**
     * Reads the value as the given type through JSON-B.
     *
     * @param type the target type, e.g. a record
     * @param <T>  the target type
     * @return the value, or null for a JSON {@code null}
     */
    <T> T as(Class<T> type);

    /** @return true when the value is JSON {@code null} (or absent) */
    boolean isNull();
}
