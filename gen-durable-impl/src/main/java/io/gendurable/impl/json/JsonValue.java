package io.gendurable.impl.json;

import io.gendurable.DurableValue;

import java.lang.reflect.Type;
import java.util.function.BiFunction;

/** A JSON value read from the database, read lazily through JSON-B ({@link Json#value}). */
public final class JsonValue implements DurableValue {
    private final String json;
    private final BiFunction<String, Type, Object> reader;

    /**
     * @param json   the text; null: JSON {@code null}
     * @param reader reads a text as a type (the codec's {@code read})
     */
    JsonValue(String json, BiFunction<String, Type, Object> reader) {
        this.json = json == null ? "null" : json;
        this.reader = reader;
    }

    @Override
    public String json() {
        return json;
    }

    @Override
    public <T> T as(Class<T> type) {
        return type.cast(reader.apply(json, type));
    }

    @Override
    public boolean isNull() {
        return "null".equals(json);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DurableValue v && v.json().equals(json);
    }

    @Override
    public int hashCode() {
        return json.hashCode();
    }

    @Override
    public String toString() {
        return json;
    }
}
